"""SEO names keep the product's words of the original file name and leave out the words cameras and
editing apps add."""

from __future__ import annotations

import pytest

from retouch.names import name_words, seo_filename


@pytest.mark.parametrize(
    ("filename", "words"),
    [
        ("lamp2_meitu_1.jpg", "lamp"),
        ("borsa-photoroom-edited.png", "borsa"),
        ("scarpa_final_copy (3).jpg", "scarpa"),
        ("IMG_20240101_0001.jpg", ""),
        ("DSC0042_snapseed.JPG", ""),
        ("img2.jpg", ""),
        ("Borsa_pelle-NERA (2).JPG", "borsa pelle nera"),
        ("3borse_vintage.jpg", "borse vintage"),
        ("sony_cuffie_wh.jpg", "sony cuffie wh"),  # a camera maker can be the product's brand
    ],
)
def test_product_words_stay_and_tool_words_go(filename: str, words: str) -> None:
    assert name_words(filename) == words


def test_the_product_word_leads_the_seo_name() -> None:
    name = seo_filename(
        None,
        None,
        "nero antracite",
        "abcd1234",
        original_filename="lamp2_meitu_1.jpg",
        colours=["nero antracite"],
    )
    assert name.startswith("lamp-") and "meitu" not in name
