"""HTML (and the other Docling formats) exported to Markdown; files Docling cannot convert are rejected."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
import threading

import pytest

from right_rag_dagster.core.markdown import fenced_spans, inside
from right_rag_dagster.errors import DocumentRejected
from right_rag_dagster.loaders.office import (
    fence_pre_blocks,
    hidden_modules,
    html_title,
    main_content,
    plain_pre_blocks,
    read_with_docling,
    unglue_fences,
    unwrap_layout_tables,
    with_front_matter_title,
    without_page_furniture,
)
from tests.conftest import REPO_ROOT


def test_the_copyright_format_specification_becomes_markdown_with_its_headings(sample_documents):
    text = read_with_docling(sample_documents / "copyright-format-1.0.html", "copyright-format-1.0.html")
    assert text.startswith("## Machine-readable debian/copyright file")
    assert "<html" not in text.lower() and "</p>" not in text
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert len(headings) > 20
    assert any("Files" in line for line in headings)


def test_characters_are_read_as_the_page_shows_them():
    """Memcheck's chapter writes options as ``--leak-check=<no|summary|yes|full>`` and macros as
    ``VALGRIND_MALLOCLIKE_BLOCK``: read so, not as ``&lt;no|summary|yes|full&gt;`` or ``VALGRIND\\_MALLOCLIKE``
    (Docling's default export), which answers quoted and BM25 split into words of their own."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout13" / "documents" / "valgrind-memcheck-manual.html").resolve()
    text = read_with_docling(path, "valgrind-memcheck-manual.html")
    assert "--leak-check=<no|summary|yes|full>" in text and "VALGRIND_MALLOCLIKE_BLOCK" in text
    assert "&lt;" not in text and "&amp;" not in text and "\\_" not in text


def test_a_page_laid_out_in_tables_keeps_its_headings_and_paragraphs():
    """libxslt's "Writing extensions" page (tests/fixtures/heldout18) puts its menu, title and text in nested
    tables. Read as tables, the page was one table row: no heading, the whole text one paragraph after the menu."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout18" / "documents" / "libxslt-extensions.html").resolve()
    text = read_with_docling(path, "libxslt-extensions.html")
    assert text.startswith("# The XSLT C library for GNOME\n\n## Writing extensions")
    for heading in ("### Introduction", "### Loading a module", "### The shutdown of a module"):
        assert f"\n{heading}\n" in text
    loading = text.index("### Loading a module")
    assert "it will be invoked separately each time for each transformation." in text[loading:]
    assert "\n\nIt returns a pointer." not in text  # sentences of a paragraph stay together


def test_a_pre_block_in_markdown_keeps_its_lines_and_paragraphs():
    """The W3C notice Temurin ships (tests/fixtures/heldout32) sets its whole text in one ``<pre>`` block of a
    Markdown file: passed through, it was one 7 KB paragraph with its ``<pre>`` tags; as a code fence its numbered
    clauses stay paragraphs of their own."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout32" / "documents" / "w3c-intellectual-rights-notice.md").resolve()
    text = read_with_docling(path, "w3c-intellectual-rights-notice.md")
    assert "<pre>" not in text and "\n```\nCopyright © 1994-2002 W3C" in text
    assert "\n\n4. Caches of W3C materials should comply" in text


@pytest.mark.parametrize(("markdown", "fenced"), [
    # tags inside dropped, entities decoded, a longer fence around a body that holds one
    ("Intro\n\n<pre>$ getent hosts <i>foo</i>.local\na &amp; b</pre>\n\nAfter\n",
     "Intro\n\n```\n$ getent hosts foo.local\na & b\n```\n\nAfter\n"),
    ("<pre>\nrun ```x```\n</pre>\n", "````\nrun ```x```\n````\n"),
    # a <pre> shown in a code fence is code, and a text without one is read as it is
    ("```html\n<pre>x</pre>\n```\n", None),
    ("No block here, only <pre>inline</pre> text.\n", None),
])
def test_pre_blocks_become_code_fences(markdown, fenced):
    assert fence_pre_blocks(markdown) == fenced


def test_a_code_block_in_a_list_item_closes_before_the_next_release():
    """Docling writes a code block inside a list item with its closing fence glued to the text after it
    ("```Python2 still depends ..."): no closing fence carries text, so the block never closed and Requests' history
    (tests/fixtures/heldout32) read its last 130 releases as code, their headings lost."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout32" / "documents" / "requests-HISTORY.md").resolve()
    text = read_with_docling(path, "requests-HISTORY.md")
    assert '\n```\nPython2 still depends upon the `chardet` module.' in text
    assert not inside(fenced_spans(text), text.index("## 2.25.1 (2020-12-16)"))


@pytest.mark.parametrize(("markdown", "unglued"), [
    ("- item:\n```\npip install x\n```Then more.\n## Next\n", "- item:\n```\npip install x\n```\nThen more.\n## Next\n"),
    ("```sh\nls\n```\n\nText ```not a fence```\n", "```sh\nls\n```\n\nText ```not a fence```\n"),
    # a line that opens no fence (text after it that no language is) is left as it is
    ("```Just text `with` ticks\nmore\n```\n", "```Just text `with` ticks\nmore\n```\n"),
])
def test_glued_closing_fences_are_unglued(markdown, unglued):
    assert unglue_fences(markdown) == unglued


def test_the_title_tag_is_recorded_apart_from_the_text(tmp_path):
    """Docling's Markdown leaves ``<title>`` out: the loader records it in the document's metadata (entities decoded,
    whitespace collapsed), and nothing when the page has none."""
    from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader

    page = REPO_ROOT / "tests" / "fixtures" / "heldout29" / "documents" / "underscore-index.html"
    document = DefaultDocumentLoader().load_document(page, page.name)
    assert document.metadata["title"] == "Underscore.js" and "Underscore.js\n" not in document.text[:200]
    path = tmp_path / "titled.html"
    path.write_text("<html><head><TITLE>\n  Caf&eacute; &amp;\n Bar </TITLE></head><body><p>x</p></body></html>",
                    encoding="utf-8")
    assert html_title(path) == "Café & Bar"
    path.write_bytes("<html><head><title>Résumé</title></head><body><p>x</p></body></html>".encode("cp1252"))
    assert html_title(path) == "Résumé"
    path.write_text("<html><body><h1>No title</h1></body></html>", encoding="utf-8")
    assert html_title(path) is None
    assert "title" not in DefaultDocumentLoader().load_document(path, path.name).metadata


def test_front_matter_is_kept_as_a_block_under_its_title(tmp_path):
    """npm's "Dependency Selectors" page opens with YAML front matter and its first heading is "### Description":
    Docling read the block as a setext heading ("## ", the fields run together) and the page was titled
    "Description". The fields stay, as a fenced block, under a ``#`` heading of their title when the page has none;
    a page with its own ``#`` heading (systemd's) keeps it alone."""
    from right_rag_dagster.builtins.document_loaders.default import DefaultDocumentLoader

    page = REPO_ROOT / "tests" / "fixtures" / "heldout40" / "documents" / "npm-dependency-selectors.md"
    text = DefaultDocumentLoader().load_document(page, page.name).text
    assert text.startswith("# Dependency Selectors\n\n```\ntitle: Dependency Selectors\nsection: 7\n")
    assert "\n### Description\n" in text and "## \n" not in text
    own = "---\ntitle: 'Hacking'\nlayout: default\n---\n\nHacking\n=======\n\nText.\n"
    assert with_front_matter_title(own) == "```yaml\ntitle: 'Hacking'\nlayout: default\n```\n\nHacking\n=======\n\nText.\n"
    assert with_front_matter_title("---\ntitle: \"A: B\"\n...\n## One\n").startswith("# A: B\n\n```yaml\n")
    assert with_front_matter_title("Text\n---\ntitle: x\n---\n") is None  # a rule later on is no front matter
    # a page that opens with a rule over its own title and tagline has no front matter: its heading stays a heading
    assert with_front_matter_title("---\n\n# Frobnicator\n\nConverts widgets.\n\n---\n\n## Install\n") is None
    assert with_front_matter_title("---\nSome intro text\n...\nmore\n") is None
    folded = with_front_matter_title("---\ntitle: >-\n  Long\n  name # not a comment\nweight: 2\n---\n## One\n")
    assert folded.startswith("# Long name # not a comment\n\n```yaml\n")
    commented = "---\ntitle: T\n---\n<!--\n# not shown\n-->\n\n## One\n"
    assert with_front_matter_title(commented).startswith("# T\n")  # a "# line" in a comment is no heading


def test_a_table_of_data_stays_a_table(tmp_path):
    path = tmp_path / "data.html"
    path.write_text("<html><body><h1>Sizes</h1><table><tr><th>name</th><th>bytes</th></tr>"
                    "<tr><td>a.txt</td><td>12</td></tr></table><p>End.</p></body></html>", encoding="utf-8")
    assert unwrap_layout_tables(path.read_bytes()) is None
    text = read_with_docling(path, "data.html")
    assert "| name   |   bytes |" in text and "| a.txt  |      12 |" in text


def test_a_layout_table_keeps_a_table_of_data_inside_it():
    html = ("<table><tr><td><h2>Part</h2><p>Text.</p><table><tr><td>x</td><td>1</td></tr></table></td></tr></table>"
            ).encode()
    unwrapped = unwrap_layout_tables(html).decode()
    assert unwrapped.count("<table>") == 1 and "<td>x</td>" in unwrapped and "<h2>Part</h2>" in unwrapped


def test_a_highlighted_console_session_is_a_code_block_without_its_copy_button():
    """Node.js's API pages set a session in highlighting ``<span>``s beside a "copy" ``<button>``: Docling read it as
    inline code, its lines run together ("> 2 global.x = 5; 3 setTimeout") and `copy` after it. Markup inside a
    ``<pre>`` is dropped, its text kept, so the session is a fenced block of its own lines."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout40" / "documents" / "nodejs-debugger.html").resolve()
    text = read_with_docling(path, "nodejs-debugger.html")
    assert "`copy`" not in text and "copy\n```" not in text
    session = next(start for start, _ in fenced_spans(text) if "node inspect myscript.js" in text[start:start + 200])
    assert "\n  1 // myscript.js\n> 2 global.x = 5;\n  3 setTimeout(() => {\n" in text[session:session + 1_000]


@pytest.mark.parametrize("html, expected", [
    (b'<pre><b>/* zpipe.c */\nint x;</b></pre>', b"<pre>/* zpipe.c */\nint x;</pre>"),
    (b'<pre><code class="language-js"><span class="k">const</span> a = 1;</code><button>copy</button></pre>',
     b'<pre><code class="language-js">const a = 1;</code></pre>'),
    (b"<pre><span>$ make</span><br>$ make install<br/>done</pre>", b"<pre>$ make\n$ make install\ndone</pre>"),
])
def test_the_markup_inside_a_pre_block_is_dropped(html, expected):
    assert expected in plain_pre_blocks(b"<html><body><p>Text.</p>" + html + b"</body></html>")


def test_a_plain_pre_block_or_a_code_element_inside_one_is_left_as_it_is():
    assert plain_pre_blocks(b'<html><body><pre><code class="x">a &lt; b</code></pre><pre>c</pre></body></html>') is None


def test_a_documentation_page_is_read_from_its_main_content():
    """mdBook's page template holds a keyboard-shortcut help box that a script shows, outside ``<main>``: it was read
    as the chapter's front matter and ranked first for a question naming the chapter."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout35" / "documents" / "rustc-exploit-mitigations.html").resolve()
    text = read_with_docling(path, "rustc-exploit-mitigations.html")
    assert "Keyboard shortcuts" not in text and "navigate between chapters" not in text
    assert text.startswith("# Exploit Mitigations\n")
    assert "removed as the default allocator" in text
    assert html_title(path) == "Exploit Mitigations - The rustc book"


@pytest.mark.parametrize("body, kept", [
    ('<nav>Menu</nav><div role="main"><h1>Guide</h1><p>Text.</p></div><footer>Site</footer>', "Guide"),
    ('<nav>Menu</nav><div role="Main navigation"><h1>Guide</h1><p>Text.</p></div>', "Guide"),
    ("<nav>Menu</nav><main><h1>Guide</h1><p>Text.</p></main>", "Guide"),
    ("<nav>Menu</nav><main hidden><p>Old</p></main><main><h1>Guide</h1><p>Text.</p></main>", "Guide"),
])
def test_the_main_element_or_role_is_the_page(body, kept):
    page = main_content(f"<html><head><title>T</title></head><body>{body}</body></html>".encode()).decode()
    assert kept in page and "Menu" not in page and "Site" not in page and "<title>T</title>" in page


@pytest.mark.parametrize("body", [
    "<h1>Guide</h1><p>No main here.</p>",
    "<main><p>One</p></main><main><p>Two</p></main>",
    "<nav>Menu</nav><main> </main><p>Text outside.</p>",
    "<nav>Menu</nav><main hidden><h1>Guide</h1></main><p>Visible</p>",
    '<main aria-hidden="true"><p>Old</p></main><p>Visible</p>',
    "<noscript><main>Enable JS</main></noscript><div><h1>Real</h1><p>Body text</p></div>",
    '<div role="mainmenu"><p>Menu</p></div><p>Text</p>',
])
def test_a_page_without_one_shown_main_element_with_text_is_read_whole(body):
    assert main_content(f"<html><body>{body}</body></html>".encode()) is None


def test_a_latin_1_xhtml_page_cut_to_its_main_reads_its_accents(tmp_path):
    """bs4 writes the cut page as UTF-8 and rewrites a ``<meta>`` charset, but not an XML declaration's encoding."""
    path = tmp_path / "page.xhtml"
    path.write_bytes('<?xml version="1.0" encoding="iso-8859-1"?>\n<html><head><title>T</title></head><body>'
                     '<nav>Menu</nav><div role="main"><h1>R\u00e9sum\u00e9</h1><p>na\u00efve caf\u00e9</p>'
                     '<table><tr><td><h2>Part</h2><p>cr\u00e8me</p></td></tr></table></div></body></html>'
                     .encode("iso-8859-1"))
    text = read_with_docling(path, "page.xhtml")
    assert "Résumé" in text and "naïve café" in text and "crème" in text and "Menu" not in text


@pytest.mark.parametrize("name, content, reason", [
    ("empty.html", b"", "file is empty"),
    ("image.html", b"\x89PNG\r\n\x1a\n\x00\x00 not html", "Docling could not convert it"),
    ("broken.docx", b"PK\x03\x04 not really a zip archive", "Docling could not convert it"),
])
def test_files_docling_cannot_read_are_rejected(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DocumentRejected) as caught:
        read_with_docling(path, f"web/{name}")
    assert caught.value.document == f"web/{name}"
    assert reason in caught.value.reason


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_converting_a_page_never_imports_torch_and_leaves_it_importable(sample_documents):
    """Docling probes torch and transformers while it is imported (5-7 s per process with torch installed); the
    formats read here need neither, so a fresh process converts a page without them and can still import them."""
    page = sample_documents / "copyright-format-1.0.html"
    code = ("import sys; from pathlib import Path; from right_rag_dagster.loaders.office import read_with_docling, unwrap_layout_tables; "
            f"text = read_with_docling(Path({str(page)!r}), 'page'); assert text.startswith('## Machine-readable'); "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules)); "
            "import torch, transformers; print(torch.__name__, transformers.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert out.stdout.split("\n")[:2] == ["[]", "torch transformers"]


def test_modules_hidden_while_docling_imports_stay_importable_in_other_threads(tmp_path, monkeypatch):
    """Only the thread importing Docling is refused torch: a model loading in another thread meanwhile (a playground
    or evaluation beside an index) imports it as usual."""
    (tmp_path / "heavy_probe_mod.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen: list[str] = []
    with hidden_modules(("heavy_probe_mod",)):
        with pytest.raises(ImportError):
            importlib.import_module("heavy_probe_mod")
        other = threading.Thread(target=lambda: seen.append(importlib.import_module("heavy_probe_mod").__name__))
        other.start()
        other.join()
    assert seen == ["heavy_probe_mod"]
    sys.modules.pop("heavy_probe_mod", None)


@pytest.mark.parametrize("heading, expected", [
    (b'<h2 id="a"><a class="header" href="#a">Atomics</a></h2>', b'<h2 id="a">Atomics</h2>'),  # mdBook
    (b'<h2>Corepack<span><a class="mark" href="#c" id="c">#</a></span></h2>', b"<h2>Corepack<span></span></h2>"),
    (b'<h1>IDLE<a class="headerlink" href="#idle" title="Permalink">\xc2\xb6</a></h1>', b"<h1>IDLE</h1>"),  # Sphinx
    (b'<h3><a href="#t">To <code>panic!</code></a></h3>', b"<h3>To <code>panic!</code></h3>"),
    (b'<h2 id="q"><a class="header" href="#q"><code>?</code></a></h2>', b'<h2 id="q"><code>?</code></h2>'),
])
def test_a_headings_links_to_its_own_anchor_are_dropped(heading, expected):
    page = without_page_furniture(b"<html><body>" + heading + b'<p>See <a href="#a">above</a>.</p></body></html>')
    assert expected in page and b'<a href="#a">above</a>' in page  # a link in the text stays


@pytest.mark.parametrize("body", [
    b'<h2><a href="https://x.org/">X</a></h2><p>T</p>',
    b'<h2><a data-href="#x">X</a></h2><p>See <a href="#x">X</a>.</p>',
    b"<p>Text.</p>",
])
def test_a_page_without_furniture_is_left_as_it_is(body):
    assert without_page_furniture(b"<html><body>" + body + b"</body></html>") is None


def test_drawings_and_action_buttons_are_dropped_and_a_panels_label_is_kept():
    """An SVG's labels and a button that acts ("Show Railroad") are no text of the page; an accordion's question (a
    button in its heading, or one that opens a panel) and a tab's name are."""
    page = without_page_furniture(
        b'<html><body><p>Text.</p><button onclick="f()">Show Railroad</button><svg><text>pub</text></svg>'
        b'<h2 class="accordion-header"><button class="accordion-button">How do I reset my password?</button></h2>'
        b'<button aria-expanded="false" aria-controls="p2">Can I change my e-mail address?</button>'
        b'<button role="tab">Linux</button></body></html>')
    assert b"Text." in page and b"Railroad" not in page and b"pub" not in page
    assert b"<h2 class=\"accordion-header\">How do I reset my password?</h2>" in page
    assert b"Can I change my e-mail address?" in page and b"Linux" in page and b"<button" not in page



@pytest.mark.parametrize("nested", [
    b'<button onclick="f()"><svg><text>x</text></svg></button>',  # Node.js's theme button and its icon
    b"<svg><foreignObject><button>b</button></foreignObject></svg>",
    b"<button>a<button>b</button></button>",
])
def test_a_control_inside_a_dropped_control_goes_with_it(nested):
    """A page read whole (no ``<main>``) with a drawing in a button, or a button in a drawing: the inner one went
    with the outer and was then read again (``TypeError`` on its attributes, the page not loaded)."""
    page = without_page_furniture(b"<html><body><p>Text.</p>" + nested + b"</body></html>")
    assert b"Text." in page and b"<button" not in page and b"<svg" not in page

def test_an_mdbook_reference_page_reads_its_headings_without_links_and_its_diagrams_without_labels():
    """The Rust Reference's pages (heldout46): mdBook links each heading to itself ("# [Visibility and
    privacy](#visibility-and-privacy)" was the document's title and every citation's path) and draws its grammar as
    an SVG railroad diagram behind a "Show Railroad" button (one paragraph per label: "pub", "(", "crate")."""
    path = (REPO_ROOT / "tests" / "fixtures" / "heldout46" / "documents"
            / "rust-reference-visibility-and-privacy.html").resolve()
    text = read_with_docling(path, path.name)
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[0] == "# Visibility and privacy" and "## Re-exporting and visibility" in headings
    assert "Show Railroad" not in text and "\n\ncrate\n\n" not in text
    assert "It does not guarantee that the item is visible within all parts of the specified scope." in text
    assert "[vis" not in text  # the rule names over its paragraphs


def test_a_div_that_only_links_to_itself_is_dropped_and_other_self_links_stay():
    """A permalink marker (the Rust Reference's rule names over its paragraphs) is no text of the page. A paragraph
    that links to its own anchor among other words, a link to another block, a figure's empty self-link beside its
    picture, and an option's term that is only a link to itself (Cargo's command pages: ``<dt>``, a review found
    3,900 of them) are."""
    page = without_page_furniture(
        b'<html><body><div class="rule" id="r-vis.intro"><a class="rule-link" href="#r-vis.intro">'
        b'<span>[vis<wbr>.intro]</span></a></div><p>These two terms.</p>'
        b'<p id="n"><a href="#n">Note</a>: read this.</p><div id="m"><a href="#other">[other]</a></div>'
        b'<div id="fig"><a href="#fig"></a><img alt="diagram"></div>'
        b'<dl><dt class="option-term" id="option-cargo-build---release"><a class="option-anchor"'
        b' href="#option-cargo-build---release"><code>--release</code></a></dt><dd>Build optimized.</dd></dl>'
        b'</body></html>')
    assert b"vis" not in page and b"These two terms." in page
    assert b'<a href="#n">Note</a>: read this.' in page and b'<a href="#other">[other]</a>' in page
    assert b'alt="diagram"' in page and b"<code>--release</code>" in page

