"""Smart backgrounds that stand on their surface: the surface line (:func:`retouch.backgrounds.surface_row`)
goes through the product's highest ground contact, so a bicycle's tyres rest on the floor instead of
floating in front of the wall. The whole bicycle on a smart background (``nomask/bike.jpg``) is tested
with its openings in ``test_retouch_openings.py``.
"""

from __future__ import annotations

import numpy as np

from retouch.backgrounds import surface_row


def test_surface_row_goes_through_the_highest_ground_contact():
    alpha = np.zeros((200, 300), np.float32)
    alpha[40:150, 50:250] = 1.0  # the body
    alpha[150:170, 60:90] = 1.0  # rear foot, its lowest row 169
    alpha[150:180, 200:230] = 1.0  # front foot, lower (nearer the camera), its lowest row 179
    assert surface_row(alpha) == 170
    box = np.zeros((200, 300), np.float32)
    box[50:160, 100:200] = 1.0
    assert surface_row(box) == 160  # one base: its lowest opaque row on the line
    assert surface_row(np.zeros((100, 100), np.float32)) == 85
