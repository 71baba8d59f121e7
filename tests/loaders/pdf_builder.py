"""Build tiny PDFs for loader tests: text pages, printed page labels, and the standard RC4 encryption.

Written by hand (no PDF writer is installed) so the tests can make an encrypted PDF that needs a password;
the encryption follows the PDF 1.7 standard security handler, revision 2 (40-bit RC4, algorithms 2-4).
"""

from __future__ import annotations

import hashlib

_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")
_FILE_ID = bytes.fromhex("0123456789abcdef0123456789abcdef")
_PERMISSIONS = -44


def rc4(key: bytes, data: bytes) -> bytes:
    """RC4 stream cipher (encrypts and decrypts)."""
    state = list(range(256))
    j = 0
    for i in range(256):
        j = (j + state[i] + key[i % len(key)]) % 256
        state[i], state[j] = state[j], state[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + state[i]) % 256
        state[i], state[j] = state[j], state[i]
        out.append(byte ^ state[(state[i] + state[j]) % 256])
    return bytes(out)


def _padded(password: str) -> bytes:
    return (password.encode("latin-1") + _PAD)[:32]


def _security(user_password: str, owner_password: str) -> tuple[bytes, bytes, bytes]:
    """(file key, /O, /U) for revision 2."""
    owner = rc4(hashlib.md5(_padded(owner_password)).digest()[:5], _padded(user_password))
    permissions = _PERMISSIONS.to_bytes(4, "little", signed=True)
    key = hashlib.md5(_padded(user_password) + owner + permissions + _FILE_ID).digest()[:5]
    return key, owner, rc4(key, _PAD)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[str], labels_from: int | None = None, password: str | None = None) -> bytes:
    """A PDF with one text line per page; ``labels_from`` numbers pages in decimal from that value."""
    count = len(pages)
    page_ids = [4 + 2 * index for index in range(count)]
    catalog = "<< /Type /Catalog /Pages 2 0 R"
    if labels_from is not None:
        catalog += f" /PageLabels << /Nums [0 << /S /D /St {labels_from} >>] >>"
    objects: dict[int, bytes] = {
        1: (catalog + " >>").encode(),
        2: f"<< /Type /Pages /Kids [{' '.join(f'{i} 0 R' for i in page_ids)}] /Count {count} >>".encode(),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    key = owner = user = b""
    if password is not None:
        key, owner, user = _security(password, password + "-owner")
    for page_id, text in zip(page_ids, pages):
        content = f"BT /F1 12 Tf 72 720 Td ({_escape(text)}) Tj ET".encode("latin-1")
        if password is not None:
            object_key = hashlib.md5(key + (page_id + 1).to_bytes(3, "little") + b"\0\0").digest()[:10]
            content = rc4(object_key, content)
        objects[page_id] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {page_id + 1} 0 R >>").encode()
        objects[page_id + 1] = f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream"
    trailer_extra = ""
    if password is not None:
        encrypt_id = max(objects) + 1
        objects[encrypt_id] = (f"<< /Filter /Standard /V 1 /R 2 /O <{owner.hex()}> /U <{user.hex()}> "
                               f"/P {_PERMISSIONS} >>").encode()
        trailer_extra = f" /Encrypt {encrypt_id} 0 R"
    return _serialize(objects, trailer_extra)


def _serialize(objects: dict[int, bytes], trailer_extra: str) -> bytes:
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += f"{number} 0 obj\n".encode() + objects[number] + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
    for number in range(1, size):
        out += f"{offsets[number]:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {size} /Root 1 0 R /ID [<{_FILE_ID.hex()}> <{_FILE_ID.hex()}>]{trailer_extra} >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)
