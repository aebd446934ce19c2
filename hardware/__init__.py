"""Hardware seams: each device behind a small interface with a real backend and a software twin.

Nothing here imports gpiozero, luma or picamera2 at import time; a backend loads its library when it starts.
"""
