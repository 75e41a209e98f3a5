"""Every measure of the printable tower parts, in one place (millimetres and degrees).

Each part module builds its solid from these names only, so changing a measure here changes
every part that depends on it. Bought parts (servo, OLED, ring, buttons, ESP32 board, webcam) are
described by the figures of the common modules listed in hardware/bom.md; measure yours and edit
the numbers here if they differ.

Frames used by the part modules:
- tower frame: z up from the table, x across the chute (servo side at x = 0), y from the front
  wall (the exit, y = 0) to the back wall;
- tray frame: origin at the centre of the tray floor's top face (where the dice lie), z up,
  y towards the back wall (where the camera mast stands), x across.
"""

import math

# --- printing -----------------------------------------------------------------------------------
NOZZLE = 0.4
"""Nozzle diameter the parts are drawn for (mm)."""
MIN_WALL = round(3 * NOZZLE, 6)
"""Thinnest wall any part may have: three perimeters of the nozzle (mm)."""
BED = (220.0, 220.0, 250.0)
"""Printer build volume x, y, z (mm): every part must fit in its print pose."""
FIT = 0.4
"""Clearance added to a hole or pocket that takes a bought part (mm, on the diameter or width)."""
SEGMENTS = 64
"""Facets on a full circle (holes, hubs, the ring holder)."""

# --- dice ---------------------------------------------------------------------------------------
D20_SIZE = 22.0
"""Largest die the tower takes: a d20 of 22 mm between opposite faces (mm)."""
ICOSAHEDRON_CIRCUM_PER_IN = math.sqrt(3) * (math.sqrt(10 + 2 * math.sqrt(5)) / (3 + math.sqrt(5)))
"""Circumradius / inradius of a regular icosahedron (1.258): a d20 tumbles through any gap
its circumscribed sphere passes."""
D20_TUMBLE_DIAMETER = D20_SIZE * ICOSAHEDRON_CIRCUM_PER_IN
"""Diameter of the sphere the 22 mm d20 sweeps in any orientation (27.7 mm)."""
DIE_CLEARANCE = 1.0
"""Free space kept on each side of that sphere along the dice path (mm)."""
DIE_PASSAGE = D20_TUMBLE_DIAMETER + 2 * DIE_CLEARANCE
"""Smallest gap along the dice path: gate opening, baffle gaps, exit (29.7 mm)."""

# --- tower body ---------------------------------------------------------------------------------
TOWER_WALL = 3.0
"""Tower side, front and back walls (mm)."""
CHUTE_W = 60.0
"""Inside width of the chute across x (mm): several dice fall side by side."""
CHUTE_D = 70.0
"""Inside depth of the chute along y, front wall to back wall (mm)."""
TOWER_H = 205.0
"""Tower height, table to the rim (mm)."""
BAFFLE_T = 3.0
"""Baffle thickness, measured perpendicular to its face (mm)."""
BAFFLE_ANGLE = 45.0
"""Baffle slope from horizontal (degrees); 45 prints without support and keeps dice tumbling."""
BAFFLE_GAP = 36.0
"""Horizontal gap between a baffle's tip and the opposite wall (mm); >= DIE_PASSAGE."""
BAFFLE_TOPS = (135.0, 82.0)
"""Height at the wall of each baffle's upper face, top to bottom (mm). The first hangs from the
front wall, the next from the back wall, so dice zig-zag."""
EXIT_RAMP_ANGLE = 25.0
"""Slope of the exit ramp that runs from the back wall down to the exit (degrees)."""
EXIT_SILL_Z = 6.0
"""Height of the exit ramp at the front wall (mm): above the tray floor, so dice drop onto it."""
EXIT_H = 42.0
"""Height of the exit opening in the front wall above the sill (mm)."""

# --- gate (flap on the servo) -------------------------------------------------------------------
HINGE_Z = 180.0
"""Height of the gate's hinge axis (the servo shaft) above the table (mm)."""
FLAP_T = 3.0
"""Flap plate thickness (mm)."""
FLAP_HUB_R = 6.0
"""Radius of the flap's hinge hub, a cylinder along x on the hinge axis (mm)."""
HUB_TO_BACK_WALL = 2.0
"""Air between the hub and the back wall (mm)."""
FLAP_TIP_GAP = 1.5
"""Air between the closed flap's tip and the front wall (mm): less than any die."""
FLAP_SIDE_GAP = 1.0
"""Air between the flap and each side wall (mm)."""
HINGE_PIN_D = 4.0
"""Pin on the flap's far end that turns in a hole in the opposite side wall (mm)."""
HORN_RIB_W = 8.0
"""Width (x) of the rib on the servo end of the flap that takes the horn (mm)."""
HORN_RIB_H = 10.0
"""Height of that rib across the flap plate (mm)."""

# --- SG90 / MG90S micro servo and its single-arm horn --------------------------------------------
SERVO_BODY = (22.5, 12.2, 22.7)
"""Servo case length (along its tabs), width, height below the tabs' top face to the bottom (mm)."""
SERVO_SHAFT_FROM_END = 5.9
"""Output shaft axis to the nearer end of the case (mm)."""
SERVO_TAB_PITCH = 27.8
"""Distance between the two mounting-tab screw holes (mm)."""
SERVO_TAB_TO_TOP = 4.3
"""From the tabs' upper face to the case's top face (mm): the standoff height, so the case top
rests on the tower wall."""
SERVO_TOWER_D = 11.8
"""Diameter of the gear tower around the shaft on top of the case (mm): passes the wall."""
SERVO_TOWER_H = 4.0
"""Height of the gear tower above the case top (mm): the wall plus the flap's side gap, so the
spline reaches into the horn held flush with the flap's end."""
M2_PILOT = 1.8
"""Pilot hole for an M2 self-tapping screw: the servo's tab screws, the OLED's screws (mm)."""
HORN_HUB_D = 7.0
"""Single-arm horn: hub diameter (mm)."""
HORN_HUB_H = 3.6
"""Single-arm horn: hub height (mm)."""
HORN_ARM_LEN = 19.5
"""Single-arm horn: shaft axis to arm tip (mm)."""
HORN_ARM_W = 5.6
"""Single-arm horn: arm width at the hub (mm)."""

# --- tray ---------------------------------------------------------------------------------------
TRAY_IN = (150.0, 110.0)
"""Inside of the tray, x by y (mm): the area the camera must see."""
TRAY_WALL = 3.0
"""Tray wall thickness (mm)."""
TRAY_FLOOR = 3.0
"""Tray floor thickness (mm); its top is flat and matte (see hardware/README.md)."""
TRAY_WALL_H = 25.0
"""Tray wall height above the floor's top (mm): stops dice, stays below the camera's view line."""
M3_CLEAR = 3.4
"""Clearance hole for an M3 screw (mm)."""
M3_PILOT = 2.8
"""Pilot hole an M3 screw cuts its own thread in (mm)."""
MAST_SCREW_Z = 12.0
"""Height above the tray floor's top of the two screws that hold the camera mast (mm)."""
MAST_SCREW_PITCH = 10.0
"""Distance between those two screws along x (mm)."""

# --- camera (assumed USB webcam) and its mount --------------------------------------------------
CAM_RES = (640, 480)
"""Webcam image size the host reads, width x height (px)."""
CAM_DFOV = 60.0
"""Assumed diagonal field of view of the webcam (degrees), a common UVC webcam figure."""
CAM_MARGIN = 8.0
"""Floor seen beyond each inner tray edge (mm): dice against a wall stay whole in the image."""
CAM_Y = 20.0
"""Camera lens position behind the tray centre, along y (mm); the arm reaches this far."""
MAST_T = 12.0
"""Mast thickness along y (mm)."""
MAST_W = 24.0
"""Width of the mast, arm and camera plate along x (mm)."""
MAST_FOOT = (45.0, 6.0)
"""Foot behind the mast on the table: length along y, thickness (mm)."""
CAM_PLATE_L = 76.0
"""Camera plate length along its slope (mm); the webcam straps onto it."""
CAM_PLATE_T = 4.0
"""Camera plate thickness (mm)."""
LENS_HOLE_D = 18.0
"""Hole in the camera plate the lens looks through (mm)."""
LENS_D = 8.0
"""Assumed diameter of the webcam's lens front (mm)."""
GUSSET = (10.0, 30.0)
"""Gusset under the camera plate's joint with the mast: reach along y, drop along z (mm)."""
RING_SCREW_PITCH = 62.0
"""Distance between the two M3 screws that hold the light ring holder to the camera plate (mm)."""

# --- light ring (WS2812B, 12 LEDs) and its holder -------------------------------------------------
RING_OD = 50.0
"""Outer diameter of the 12-LED WS2812B ring board (mm)."""
RING_ID = 36.0
"""Inner diameter of the ring board (mm)."""
RING_PCB_T = 1.6
"""Ring board thickness (mm)."""
HOLDER_WALL = 2.4
"""Rim around the ring board, and the lip the board rests against (mm)."""
HOLDER_H = HOLDER_WALL + RING_PCB_T + FIT / 2
"""Holder thickness along the optical axis (mm): its lip, then the pocket the ring board fills."""
HOLDER_APERTURE_D = 34.0
"""Clear hole through the holder's centre for the camera's view (mm)."""
HOLDER_EAR_W = 12.0
"""Width of the holder's two screw ears (mm); they are as thick as the holder."""
HOLDER_WIRE_SLOT = (8.0, 1.2)
"""Channel for the ring's three wires, from the board's pads out through the rim: width, depth
into the lip (mm)."""

# --- button panel and ESP32 enclosure ------------------------------------------------------------
BOX_IN = (120.0, 56.0, 32.0)
"""Inside of the ESP32 enclosure, x by y by z (mm)."""
BOX_WALL = 2.4
"""Enclosure walls and floor (mm)."""
BOX_POST_D = 7.0
"""Corner posts that take the panel's screws (mm)."""
PANEL_T = 3.0
"""Button panel thickness (mm); 12 mm buttons clamp up to about 5 mm."""
BUTTON_D = 12.0
"""Thread diameter of the 12 mm panel push buttons ROLL, OK, NO (mm)."""
BUTTON_PITCH = 22.0
"""Distance between button centres (mm); the buttons' 16 mm nuts need 20."""
BUTTON_X0 = 66.0
"""x of the first button (ROLL) from the panel's left inner edge (mm)."""
OLED_PCB = (27.3, 27.8)
"""SSD1306 0.96 inch module board, width x height (mm)."""
OLED_HOLE_PITCH = (23.3, 23.8)
"""Its four M2 mounting holes, x by y centre distance (mm)."""
OLED_ACTIVE = (21.74, 10.86)
"""Its active (lit) area, 128 x 64 px (mm)."""
OLED_ACTIVE_DY = 1.5
"""Active area centre above the hole pattern's centre, towards the header (mm)."""
OLED_WINDOW_MARGIN = 0.8
"""Window edge beyond the active area on each side (mm)."""
OLED_STANDOFF_D = 5.0
"""Standoffs on the panel's back that hold the OLED board (mm)."""
OLED_GLASS_T = 1.6
"""Display glass thickness (mm): the standoffs hold the board this far (plus FIT) below the panel."""
OLED_X0 = 26.0
"""x of the OLED's hole-pattern centre from the panel's left inner edge (mm)."""
BOARD = (54.4, 27.9, 1.6)
"""ESP32 DevKitC v4 board: length, width, thickness (mm)."""
BOARD_Z = 10.0
"""Height of the board's underside above the enclosure floor (mm): clears its header pins."""
GUIDE_W = 4.0
"""Length along x of the card guides that hold the board by its two short ends (the long edges
carry the pin headers) (mm)."""
GUIDE_GROOVE = 1.2
"""How far the board's end sits in each guide's groove (mm); the board slides in along y."""
USB_CUT = (12.0, 8.0)
"""Cut-out for the micro-USB plug in the end wall, width x height (mm)."""
CABLE_HOLE_D = 9.0
"""Hole for the servo, ring and power wires in the other end wall (mm)."""

WALLS = {
    "tower wall": TOWER_WALL,
    "baffle": BAFFLE_T,
    "flap plate": FLAP_T,
    "flap hub around the horn hub": FLAP_HUB_R - (HORN_HUB_D + FIT) / 2,
    "horn rib beside the horn slot": (HORN_RIB_H - (HORN_ARM_W + FIT)) / 2,
    "tray wall": TRAY_WALL,
    "tray floor": TRAY_FLOOR,
    "camera plate": CAM_PLATE_T,
    "camera plate beside the lens hole": (MAST_W - LENS_HOLE_D) / 2,
    "ring holder rim": HOLDER_WALL,
    "ring holder lip": HOLDER_WALL,
    "ring holder lip beside the wire channel": HOLDER_WALL - HOLDER_WIRE_SLOT[1],
    "enclosure wall": BOX_WALL,
    "panel": PANEL_T,
    "card guide beside the groove": GUIDE_W - GUIDE_GROOVE - FIT / 2,
    "panel between two buttons": BUTTON_PITCH - (BUTTON_D + FIT),
}
"""Every printed wall, name -> thickness (mm); each must be >= MIN_WALL."""
