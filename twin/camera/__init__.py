"""The studio camera: labelled frames of the twin's drops and spins, as a
camera over the tray or the wheel records them (PyBullet's CPU renderer,
textures drawn with Pillow). See docs/camera.md.

``twin.camera.spec`` (the camera and its projection) is imported by the
design loaders, so this package imports nothing else when it loads.
"""
