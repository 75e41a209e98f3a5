"""Entry point: run at boot on the ESP32, or `micropython firmware/main.py` on the simulated board."""
import app

app.main()
