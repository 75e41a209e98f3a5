"""Make the checkout's `hardware` package importable (it lives beside host/, not in it)."""

import sys

from dicetower.paths import repo_root

if str(repo_root()) not in sys.path:
    sys.path.insert(0, str(repo_root()))
