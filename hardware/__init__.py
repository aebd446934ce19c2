"""Hardware seams: each device behind a small interface with a real backend and a software twin.

Nothing here imports gpiozero, luma or picamera2 at import time; a backend loads its library when it starts.

- `hardware.buttons`: STOP/REROLL/SELECT as `ButtonEvent`s in one queue (`GpioButtons`, `ButtonTwin`,
  `KeyboardButtons`).
- `hardware.display`: the 128×64 one-bit screen (`OledDisplay`, `DummyDisplay`, `TerminalDisplay`, `save_gif`).
- `hardware.camera`: BGR frames (`PiCamera`, `WebcamCamera`, `ReplayCamera`, `StillCamera`, `FrameSequenceCamera`).
- `hardware.camera_watch`: a live camera that stops giving pictures, said and opened again (`WatchedCamera`).
- `hardware.signals`: optional buzzer and LED (`GpioSignals`, `SignalTwin`).
- `hardware.gpio`: opens gpiozero devices with one clear error on a machine without GPIO.
- `hardware.wiring`: which part goes to which header pin (the README's wiring table).
- `hardware.bench`: speed figures of the twins (`python -m hardware.bench`).
- `hardware.errors`: `HardwareError`, the seams' one error type (a `DiceCompanionError`).
"""
