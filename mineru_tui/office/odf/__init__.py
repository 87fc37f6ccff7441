"""OpenDocument text, spreadsheets and presentations (see :mod:`.reader`)."""

from mineru_tui.office.odf.reader import read_odf


def read_odt(path):
    """An OpenDocument text (``.odt``, ``.ott``...)."""
    return read_odf(path, "odt")


def read_ods(path):
    """An OpenDocument spreadsheet (``.ods``, ``.ots``)."""
    return read_odf(path, "ods")


def read_odp(path):
    """An OpenDocument presentation or drawing (``.odp``, ``.otp``, ``.odg``)."""
    return read_odf(path, "odp")


__all__ = ["read_odf", "read_odp", "read_ods", "read_odt"]
