"""Debian documentation packages: downloaded once with ``apt-get download``, unpacked with
``dpkg -x`` into a cache outside the repository, read as HTML trees.

A clean machine (CI) fetches what is missing itself; the cache survives between runs, so the
web is rebuilt offline. ``DEDUP_EVAL_CACHE`` moves the cache. A package of another Debian
release than the machine's is named ``PACKAGE@SUITE`` (``installation-guide-amd64@trixie``):
it is found in that suite's package index on ``deb.debian.org`` and fetched from its pool.
"""

from __future__ import annotations

import lzma
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from testweb.pages import rewrite_hrefs

_CACHE = Path(os.environ.get("DEDUP_EVAL_CACHE", "~/.cache/dedup-filter/debdocs")).expanduser()
_MAX_PAGE_BYTES = 100_000  # sqlite's syntax-diagram pages run to 1.5 MB: the web stays light
_SINGLE_QUOTED_HREF = re.compile(r"href='([^'\"]*)'", re.I)
_ARCHIVE = "http://deb.debian.org/debian/"
_OTHER_SCHEME_HREF = re.compile(r'href="(?!https?:)[a-z][a-z0-9+.-]*:[^"]*"', re.I)


LLVM_RELEASES = ("13", "14", "15", "16")  # Debian 12 packages each as llvm-N-doc
# the installation guide's platform editions, for the platforms web; amd64's is ``install-en``'s
INSTALL_ARCHITECTURES = ("amd64", "arm64", "i386", "s390x")
# the Debian releases beside this machine's (bookworm) whose amd64 guide the platforms web serves
INSTALL_RELEASES = ("bullseye", "trixie")
# Python's releases in Debian 11, 12 and 13, for the Python releases web (``pythons.py``)
PYTHON_RELEASES = {"3.9": "bullseye", "3.11": None, "3.13": "trixie"}


@dataclass(frozen=True, slots=True)
class DocTree:
    """Where a package installs one manual's HTML, and which of its subdirectories to read."""

    package: str
    directory: str  # inside the unpacked package
    subdirectories: tuple[str, ...] = ("",)  # glob patterns allowed: Doxygen's "d?/d??/"
    suffix: str = ".html"
    # the page a reader starts from: the index page, unless it links nothing (Doxygen's tree
    # view writes its menu in JavaScript)
    entry: str = "index.html"
    # the tree a page installed as a symbolic link out of this one copies: a translation's
    # untranslated pages (Debian installs them as links to the English edition's)
    fallback: str | None = None
    # subdirectories whose plain-text files (``*.txt``) are read too, served ``text/plain``:
    # Sphinx's ``_sources/``, which every page links as "Show Source"
    texts: tuple[str, ...] = ()


def _lilypond(manual: str, language: str) -> DocTree:
    """One of LilyPond's manuals in one language: a package for the English tree and one a
    translation, whose pages lie beside the English ones' names as ``x.fr.html``."""
    return DocTree(
        "lilypond-doc-html" + ("" if language == "en" else f"-{language}"),
        f"usr/share/doc/lilypond/html/Documentation/{manual}",
        suffix=".html" if language == "en" else f".{language}.html",
    )


TREES = {
    "sqlite": DocTree("sqlite3-doc", "usr/share/doc/sqlite3", ("", "c3ref/", "session/")),
    "sqlite-releases": DocTree("sqlite3-doc", "usr/share/doc/sqlite3/releaselog"),
    "git": DocTree("git-doc", "usr/share/doc/git-doc", ("", "howto/", "technical/")),
    "faq": DocTree("debian-faq", "usr/share/doc/debian/FAQ"),
    "maint-guide-en": DocTree("maint-guide", "usr/share/doc/maint-guide/html"),
    **{
        f"maint-guide-{language}": DocTree(
            f"maint-guide-{language}", f"usr/share/doc/maint-guide-{language}/html"
        )
        for language in ("fr", "es", "it", "de", "ja", "ru")
    },
    "devref-en": DocTree("developers-reference", "usr/share/developers-reference"),
    **{
        f"devref-{language}": DocTree(
            f"developers-reference-{language}", f"usr/share/developers-reference/{language}"
        )
        for language in ("fr", "de", "it", "ja", "ru")
    },
    **{
        f"reference-{language}": DocTree(
            f"debian-reference-{language}", "usr/share/debian-reference", suffix=f".{language}.html"
        )
        for language in ("en", "fr", "it", "es", "de")
    },
    # the holdout layout's trees
    "vim": DocTree("vim-doc", "usr/share/doc/vim/html"),
    "policy": DocTree(
        "debian-policy",
        "usr/share/doc/debian-policy",
        ("", "policy.html/", "perl-policy.html/", "menu-policy.html/"),
    ),
    # (and the ninth holdout's: its Spanish and Italian editions)
    **{
        f"install-{language}": DocTree(
            "installation-guide-amd64", f"usr/share/doc/installation-guide-amd64/{language}"
        )
        for language in ("en", "fr", "de", "es", "it", "nl", "pt", "ru", "sv", "cs")
    },
    # the English guide for each platform, and the amd64 guide of the releases before and after,
    # for the platforms web (``platforms.py``)
    **{
        f"install-{arch}": DocTree(
            f"installation-guide-{arch}", f"usr/share/doc/installation-guide-{arch}/en"
        )
        for arch in INSTALL_ARCHITECTURES
    },
    **{
        f"install-amd64-{release}": DocTree(
            f"installation-guide-amd64@{release}", "usr/share/doc/installation-guide-amd64/en"
        )
        for release in INSTALL_RELEASES
    },
    "harden-en": DocTree("harden-doc", "usr/share/doc/harden-doc/html/en-US"),
    "harden-fr": DocTree("harden-doc", "usr/share/doc/harden-doc/html/fr-FR"),
    # the second holdout's trees (thirteenth session): packages no code was tuned on
    "gio": DocTree("libglib2.0-doc", "usr/share/gtk-doc/html/gio"),
    "zsh": DocTree("zsh-doc", "usr/share/doc/zsh-common/html"),
    # (and the sixteenth holdout's: its Spanish, Czech and Japanese editions)
    **{
        f"aptitude-{language}": DocTree(
            f"aptitude-doc-{language}", f"usr/share/doc/aptitude/html/{language}"
        )
        for language in ("en", "fr", "es", "cs", "ja")
    },
    # (and the ninth holdout's: its Spanish, Italian and Portuguese editions)
    **{
        f"handbook-{language[:2]}": DocTree(
            "debian-handbook", f"usr/share/doc/debian-handbook/html/{language}"
        )
        for language in ("en-US", "fr-FR", "es-ES", "it-IT", "pt-BR", "de-DE", "ru-RU")
    },
    # the third holdout's trees (eighteenth session): generated API pages (libxml2), a manual
    # whose contents page is no index page (gettext), a short handbook with commands (kernel),
    # one history in four languages whose pages differ only in their suffix
    "libxml2": DocTree("libxml2-doc", "usr/share/gtk-doc/html/libxml2"),
    "gettext": DocTree("gettext-doc", "usr/share/doc/gettext"),
    "kernel-handbook": DocTree(
        "debian-kernel-handbook", "usr/share/doc/debian-kernel-handbook/kernel-handbook.html"
    ),
    **{
        f"history-{language}": DocTree(
            "debian-history", "usr/share/doc/debian-history/docs", suffix=f".{language}.html"
        )
        for language in ("en", "fr", "de", "es", "it", "ja", "ko", "lt")
    },
    # the fifth holdout's trees (twenty-fourth session): Sphinx pages whose navigation every
    # page repeats (Python's library reference as the chain; its howtos, tutorial and C API as
    # the stale manual), and the Apache manual's partial translations as guides: of the German
    # edition's 68 pages read, 56 are the English pages installed as links
    "python-library": DocTree("python3.11-doc", "usr/share/doc/python3.11/html/library"),
    "python-guides": DocTree(
        "python3.11-doc", "usr/share/doc/python3.11/html", ("", "howto/", "tutorial/", "c-api/")
    ),
    **{
        f"apache-{language}": DocTree(
            "apache2-doc",
            f"usr/share/doc/apache2-doc/manual/{language}",
            ("", "howto/", "misc/", "rewrite/", "ssl/", "vhosts/"),
            fallback=None if language == "en" else "apache-en",
        )
        for language in ("en", "de", "ja")
    },
    # the sixth holdout's trees (thirty-first session), packages never used before, chosen after
    # the code: gi-docgen pages, one a symbol from one template (gdk-pixbuf), a texinfo manual
    # one page a node (libgcrypt), one live-system manual in three languages whose pages differ
    # only in their suffix, and a user manual whose French edition splits chapters otherwise (dia)
    "gdk-pixbuf": DocTree(
        "libgdk-pixbuf2.0-doc", "usr/share/doc/libgdk-pixbuf2.0-doc/html/gdk-pixbuf"
    ),
    "gcrypt": DocTree("libgcrypt20-doc", "usr/share/doc/libgcrypt20-doc/html"),
    **{
        f"live-{language}": DocTree(
            "live-manual-html",
            "usr/share/doc/live-manual/html/live-manual",
            suffix=f".{language}.html",
        )
        for language in ("en", "fr", "de", "es", "it", "pt_BR", "ca", "pl", "ro")
    },
    **{
        f"dia-{language}": DocTree("dia-common", f"usr/share/doc/dia/html/{language}")
        for language in ("en", "fr")
    },
    # the seventh holdout's (thirty-first session, later), never used before: a nested manual
    # (libvirt's pages, knowledge base and man pages), postfix's READMEs and man pages, an old
    # SGML-Tools manual in three languages (upper-case HTML 3.2, no index page, no charset
    # named), and a short handbook in two
    "libvirt": DocTree(
        "libvirt-doc",
        "usr/share/doc/libvirt-doc/html",
        ("", "kbase/", "kbase/internals/", "manpages/"),
    ),
    "postfix": DocTree("postfix-doc", "usr/share/doc/postfix/html"),
    **{
        f"sylpheed-{language}": DocTree(
            "sylpheed-doc", f"usr/share/doc/sylpheed-doc/manual/{language}"
        )
        for language in ("en", "fr", "de")
    },
    **{
        f"bibletime-{language}": DocTree(
            "bibletime-data", f"usr/share/doc/bibletime-data/handbook/html/{language}"
        )
        for language in ("en", "fr")
    },
    # the eighth holdout's (thirty-second session), never used before and larger, near the
    # independent web's size: PostgreSQL's manual (1,154 pages in one directory), CMake's
    # reference (one page a command or variable from one template), GIMP's help in two languages
    "postgresql": DocTree("postgresql-doc-15", "usr/share/doc/postgresql-doc-15/html"),
    "cmake": DocTree("cmake-doc", "usr/share/doc/cmake-data/html", ("", "command/", "variable/")),
    **{
        f"gimp-{language}": DocTree(f"gimp-help-{language}", f"usr/share/gimp/2.0/help/{language}")
        for language in ("en", "de")
    },
    # the ninth holdout's (thirty-fourth session), never used before, chosen after the code:
    # Octave's texinfo manual (2,858 pages, one a node, in one directory), libsoup's gi-docgen
    # reference (one page a symbol); its handbook and installation guide editions are above
    "octave": DocTree("octave-doc", "usr/share/doc/octave/octave.html"),
    "libsoup": DocTree("libsoup-3.0-doc", "usr/share/doc/libsoup-3.0"),
    # the tenth holdout's, packages never used before: Boost's BoostBook reference (one page a
    # class or function from one template, nested a directory a namespace; the top and eight
    # libraries' namespaces and chapters read, not the boost namespace's own pages nor intrusive's
    # chapters, three of which link the top directory, "../#debug": the test server maps no
    # directory URL to its index.html, so every copy's link would be a 404), glibmm's Doxygen
    # reference (a page a class and one listing its members, from one template, in one
    # directory), LilyPond's learning manual in three languages (a package each, the
    # translations' pages differing from the English ones by their suffix), GnuCash's help in
    # two (a directory each, chunks mostly named alike)
    "boost": DocTree(
        "libboost1.74-doc",
        "usr/share/doc/libboost1.74-doc/doc/html",
        (
            "",
            *(
                f"boost/{namespace}/"
                for namespace in (
                    "accumulators",
                    "accumulators/extract",
                    "accumulators/impl",
                    "accumulators/tag",
                    "algorithm",
                    "container",
                    "container/pmr",
                    "date_time",
                    "interprocess",
                    "intrusive",
                    "type_erasure",
                    "units",
                    "units/cgs",
                    "units/si",
                )
            ),
            "container/",
            "date_time/",
            "interprocess/",
        ),
    ),
    "glibmm": DocTree("libglibmm-2.4-doc", "usr/share/doc/libglibmm-2.4-doc/reference/html"),
    # (Spanish, Italian and Japanese for the twenty-third holdout)
    **{
        f"lilypond-{language}": _lilypond("learning", language)
        for language in ("en", "de", "fr", "es", "it", "ja")
    },
    **{
        f"gnucash-help-{language}": DocTree(
            "gnucash-docs", f"usr/share/doc/gnucash-docs/gnucash-help-{language}"
        )
        for language in ("en", "de")
    },
    # the eleventh holdout's (thirty-seventh session), packages never used before: JFreeChart's
    # Javadoc reference (a page a class or interface from one template, nested a directory a
    # Java package, each with a class-use/ directory of pages listing the class's uses; its
    # index-files/ read, its src-html/ source listings not), gnuplot's manual converted by
    # latex2html (652 pages named node1.html .. node649.html, in one directory), GOsa's help in
    # three languages (latex2html too: a directory a plugin, each with its own index.html and
    # nodes, the directories not quite alike in each language), TeXworks' manual in two
    # (tex4ht: chapters named alike, sections numbered index2.html and on)
    "jfreechart": DocTree(
        "libjfreechart-java-doc",
        "usr/share/doc/libjfreechart-java/javadoc",
        (
            "",
            "index-files/",
            *(
                f"org/jfree/{package}/{uses}"
                for package in (
                    *(
                        f"chart/{name}"
                        for name in (
                            "",
                            "annotations/",
                            "axis/",
                            "block/",
                            "demo/",
                            "editor/",
                            "encoders/",
                            "entity/",
                            "event/",
                            "imagemap/",
                            "labels/",
                            "needle/",
                            "panel/",
                            "plot/",
                            "plot/dial/",
                            "renderer/",
                            "renderer/category/",
                            "renderer/xy/",
                            "resources/",
                            "servlet/",
                            "title/",
                            "urls/",
                            "util/",
                        )
                    ),
                    *(
                        f"data/{name}"
                        for name in (
                            "",
                            "category/",
                            "contour/",
                            "function/",
                            "gantt/",
                            "general/",
                            "io/",
                            "jdbc/",
                            "resources/",
                            "statistics/",
                            "time/",
                            "time/ohlc/",
                            "xml/",
                            "xy/",
                        )
                    ),
                )
                for uses in ("", "class-use/")
            ),
        ),
    ),
    "gnuplot": DocTree("gnuplot-doc", "usr/share/doc/gnuplot/htmldocs"),
    **{
        f"gosa-help-{language}": DocTree(
            f"gosa-help-{language}",
            f"usr/share/gosa/doc/core/{language}/html",
            tuple(
                f"{plugin}/"
                for plugin in (
                    "applications",
                    "blocklists",
                    "conference",
                    "departments",
                    "faxreports",
                    "fonreports",
                    "groups",
                    "ldapmanager",
                    "logview",
                    "macro",
                    "mailqueue",
                    "ogroups",
                    "users",
                )
            ),
        )
        for language in ("en", "de", "fr")
    },
    **{
        f"texworks-{language}": DocTree(
            f"texworks-help-{language}", f"usr/share/texworks-help/{language}"
        )
        for language in ("en", "fr")
    },
    # the twelfth holdout's (thirty-eighth session), packages never used before: Berkeley DB's
    # documentation (DocBook XSL 1.73, nested: the C, C++ and Tcl API references side by side,
    # three getting-started guides each in a C, a C++ and a Java edition, pages of one
    # edition byte for byte another's where no code differs, the programmer's reference and
    # the porting guide; its Doxygen C# and Javadoc Java references, STL reference,
    # installation and upgrading notes not read), UDO's manual in German (udo-doc-de: 385
    # pages made by the UDO converter, in one directory), the Ubuntu packaging guide in three
    # languages (Sphinx i18n, a package each: untranslated paragraphs stay English), Double
    # Commander's help in English and Russian (hand-written pages, a package each)
    "bdb": DocTree(
        "db5.3-doc",
        "usr/share/doc/db5.3-doc",
        (
            "",
            "api_reference/C/",
            "api_reference/CXX/",
            "api_reference/TCL/",
            *(
                f"{guide}/{edition}/"
                for guide in ("gsg", "gsg_txn", "gsg_db_rep")
                for edition in ("C", "CXX", "JAVA")
            ),
            "programmer_reference/",
            "porting/",
        ),
    ),
    "udo-de": DocTree("udo-doc-de", "usr/share/doc/udo-doc-de/html"),
    **{
        f"ubuntu-packaging-{language}": DocTree(
            "ubuntu-packaging-guide-html" + ("" if language == "en" else f"-{language}"),
            "usr/share/doc/ubuntu-packaging-guide-html"
            + ("" if language == "en" else f"-{language}"),
        )
        for language in ("en", "de", "fr", "es", "ru")
    },
    **{
        f"doublecmd-{language}": DocTree(
            f"doublecmd-help-{language}", f"usr/share/doublecmd/doc/{language}"
        )
        for language in ("en", "ru")
    },
    # the thirteenth holdout's (forty-fourth session), packages never used before: Django's
    # documentation (Sphinx, nested; 276 release notes, many a few lines differing from the
    # next version's), Wireshark's user's guide (DocBook XSL, chunked), LilyPond's usage and
    # extending manuals in English, French and German (the tenth holdout reads its learning
    # manual: the same generator, other text), GRASS GIS's module reference (one page per
    # module, generated from one template, in one directory)
    "django": DocTree(
        "python-django-doc",
        "usr/share/doc/python-django-doc/html",
        (
            "",
            "faq/",
            "howto/",
            "intro/",
            "internals/",
            "misc/",
            "ref/",
            "ref/models/",
            "ref/forms/",
            "ref/class-based-views/",
            "ref/contrib/",
            "topics/",
            "topics/db/",
            "topics/http/",
            "releases/",
        ),
    ),
    "wireshark": DocTree("wireshark-doc", "usr/share/doc/wireshark/wsug_html_chunked"),
    # (with the Spanish and Italian usage manual for the twenty-third holdout, the web pages and
    # the essay for the twenty-fourth)
    **{
        f"lilypond-{manual}-{language}": _lilypond(manual, language)
        for manual, languages in (
            ("usage", ("en", "fr", "de", "es", "it")),
            ("extending", ("en", "fr", "de")),
            ("web", ("es", "it", "ja")),
            ("essay", ("es", "it")),
        )
        for language in languages
    },
    "grass": DocTree("grass-doc", "usr/share/doc/grass-doc/html"),
    # the fourteenth holdout's (fifty-second session), packages never used before: Exim's
    # specification (a page a chapter, one directory; every chapter installed twice, as
    # ``chNN.html`` and ``ch-title.html``, byte for byte), Sphinx's own documentation (nested,
    # its module source listings left out), SCons' user guide (DocBook chunks, one directory);
    # the new maintainers' guide in Spanish and Italian is read with its French edition, above
    "exim": DocTree("exim4-doc-html", "usr/share/doc/exim4-doc-html/spec_html"),
    "sphinx": DocTree(
        "sphinx-doc",
        "usr/share/doc/sphinx-doc/html",
        (
            "",
            "development/",
            "development/tutorials/",
            "extdev/",
            "internals/",
            "man/",
            "tutorial/",
            "usage/",
            "usage/advanced/",
            "usage/advanced/websupport/",
            "usage/builders/",
            "usage/extensions/",
            "usage/restructuredtext/",
        ),
    ),
    "scons": DocTree("scons-doc", "usr/share/doc/scons/HTML"),
    # the fifty-third session's: Erlang/OTP's system documentation (nested, a directory a guide,
    # erl_docgen's pages), SQLAlchemy's documentation (Sphinx, nested), Node.js's API reference
    # (a page a module); the Debian reference in Italian, Spanish and German and the developers'
    # reference in German and Italian are read with their other editions, above
    "erlang": DocTree(
        "erlang-doc",
        "usr/share/doc/erlang-doc/doc",
        (
            "",
            "design_principles/",
            "efficiency_guide/",
            "embedded/",
            "general_info/",
            "getting_started/",
            "installation_guide/",
            "oam/",
            "programming_examples/",
            "reference_manual/",
            "system_architecture_intro/",
            "system_principles/",
            "tutorial/",
        ),
    ),
    "sqlalchemy": DocTree(
        "python-sqlalchemy-doc",
        "usr/share/doc/python-sqlalchemy-doc/html",
        ("", "changelog/", "core/", "dialects/", "faq/", "orm/", "orm/extensions/", "tutorial/"),
    ),
    "nodejs": DocTree("nodejs-doc", "usr/share/doc/nodejs/api"),
    # the fifty-seventh session's, packages never used before: rsyslog's documentation (Sphinx,
    # nested up to four directories deep, most with an index page of their own), Flask's
    # (Sphinx; its API reference and changelog run over the size limit and are left out),
    # Maxima's texinfo manual (one page a node, in one directory); aptitude's manual in Spanish,
    # Czech and Japanese and the developers' reference in Japanese and Russian are read with
    # their other editions, above
    "rsyslog": DocTree(
        "rsyslog-doc",
        "usr/share/doc/rsyslog-doc/html",
        (
            "",
            "compatibility/",
            "concepts/",
            "configuration/",
            "configuration/action/",
            "configuration/global/",
            "configuration/global/options/",
            "configuration/input_directives/",
            "configuration/modules/",
            "configuration/ruleset/",
            "containers/",
            "development/",
            "examples/",
            "faq/",
            "historical/",
            "installation/",
            "proposals/",
            *(
                f"proposals/big_restructuring/{name}"
                for name in (
                    "",
                    "book/",
                    "contributing/",
                    "contributing/code/",
                    "contributing/community/",
                    "contributing/documentation/",
                    "cookbook/",
                    "cookbook/setup/",
                    "cookbook/templates/",
                    "reference/",
                )
            ),
            "rainerscript/",
            "rainerscript/functions/",
            "troubleshooting/",
            "tutorials/",
            "whitepapers/",
        ),
    ),
    "flask": DocTree(
        "python-flask-doc",
        "usr/share/doc/python-flask-doc/html",
        ("", "deploying/", "patterns/", "tutorial/"),
    ),
    "maxima": DocTree("maxima-doc", "usr/share/doc/maxima-doc/html"),
    # the fifty-eighth session's, packages never used before: Doxygen's manual (a flat chapter
    # directory, and the example projects' generated pages, one per class, file or group, each
    # under ``examples/NAME/html/``), Werkzeug's documentation (Sphinx; seven reference pages
    # run over the size limit and are left out), the Debian FAQ in German, Dutch and Russian
    # (pages named with a language suffix), Click's documentation (Sphinx, one directory); the
    # Debian handbook in German and Russian is read with its other editions, above
    "doxygen": DocTree(
        "doxygen-doc",
        "usr/share/doc/doxygen/html",
        (
            "",
            *(
                f"examples/{name}/html/"
                for name in (
                    "afterdoc",
                    "author",
                    "autolink",
                    "class",
                    "define",
                    "diagrams",
                    "docstring",
                    "enum",
                    "example",
                    "file",
                    "func",
                    "group",
                    "include",
                    "javadoc-banner",
                    "jdstyle",
                    "manual",
                    "memgrp",
                    "mux",
                    "overload",
                    "page",
                    "par",
                    "pyexample",
                    "qtstyle",
                    "relates",
                    "restypedef",
                    "structcmd",
                    "tag",
                    "templ",
                )
            ),
        ),
    ),
    "werkzeug": DocTree(
        "python-werkzeug-doc",
        "usr/share/doc/python-werkzeug-doc/html",
        ("", "deployment/", "middleware/"),
    ),
    **{
        f"faq-{language}": DocTree(f"debian-faq-{language}", f"usr/share/doc/debian/FAQ/{language}")
        for language in ("de", "nl", "ru")
    },
    "click": DocTree("python-click-doc", "usr/share/doc/python-click-doc/html"),
    # the fifty-ninth session's, packages never used before: SGI's STL guide (one flat directory
    # of concept, container, iterator and algorithm pages), Python-Markdown's documentation
    # (MkDocs, its version on every page; the extensions and the change log in their own
    # directories), the Ada 2012 reference manual's clauses (one page a clause); the German,
    # Japanese and Russian editions of maint-guide and the Spanish and Russian ones of the
    # Ubuntu packaging guide are read with their other editions, above
    "stl": DocTree("stl-manual", "usr/share/doc/stl-manual/html"),
    "markdown": DocTree(
        "python-markdown-doc",
        "usr/share/doc/python-markdown-doc/docs",
        ("", "extensions/", "change_log/"),
    ),
    "ada-rm": DocTree(
        "ada-reference-manual-2012", "usr/share/doc/ada-reference-manual-2012/arm2012.html"
    ),
    # the sixty-first session's, packages never used before: pytest's documentation (Sphinx; the
    # release announcements, one short page of one template each, in ``announce/``),
    # cryptography's (Sphinx, three levels deep), APT's user guide in French, German and Spanish
    # (DocBook chapters, ``guide.LANG.html/``), Simon Tatham's puzzles' help in English and
    # German, Asymptote's manual (texinfo nodes)
    "pytest": DocTree(
        "python-pytest-doc",
        "usr/share/doc/python-pytest-doc/html",
        ("", "announce/", "example/", "explanation/", "how-to/", "reference/"),
    ),
    "cryptography": DocTree(
        "python-cryptography-doc",
        "usr/share/doc/python-cryptography-doc/html",
        (
            "",
            "development/",
            "hazmat/primitives/",
            "hazmat/primitives/asymmetric/",
            "hazmat/primitives/mac/",
            "x509/",
        ),
    ),
    **{
        f"apt-guide-{language}": DocTree("apt-doc", f"usr/share/doc/apt-doc/guide.{language}.html")
        for language in ("fr", "de", "es", "it", "nl", "pl")
    },
    **{
        f"puzzles-{language}": DocTree("sgt-puzzles", f"usr/share/sgt-puzzles/help/{language}")
        for language in ("en", "de")
    },
    "asymptote": DocTree("asymptote-doc", "usr/share/doc/asymptote/html"),
    # the sixty-second session's, packages never used before, for the twentieth holdout:
    # setuptools' documentation (Sphinx, four sections), lxml's (its site's pages and its API
    # reference in ``apidoc/``), GSK's reference (gi-docgen: a short page a class, constructor
    # or method, from one template); live-manual's Spanish, Italian and Brazilian Portuguese
    # editions and the project history's Italian and Japanese ones read from packages used before
    "setuptools": DocTree(
        "python-setuptools-doc",
        "usr/share/doc/python-setuptools-doc/html",
        ("", "deprecated/", "deprecated/distutils/", "development/", "userguide/"),
    ),
    "lxml": DocTree("python-lxml-doc", "usr/share/doc/python-lxml/html", ("", "apidoc/")),
    "gsk": DocTree("libgtk-4-doc", "usr/share/doc/libgtk-4-doc/gsk4"),
    # and for the twenty-first: Scrapy's documentation (Sphinx), Celery's (its user guide and
    # its API reference, a page a module), pandas' API reference (a page a function or method,
    # from one template); live-manual's Catalan, Polish and Romanian editions and the project
    # history's Korean and Lithuanian ones read from packages used before
    "scrapy": DocTree(
        "python-scrapy-doc", "usr/share/doc/python-scrapy-doc/html", ("", "intro/", "topics/")
    ),
    "celery": DocTree(
        "python-celery-doc",
        "usr/share/doc/python-celery-doc/html",
        ("", "getting-started/", "userguide/", "reference/"),
    ),
    "pandas-api": DocTree(
        "python-pandas-doc", "usr/share/doc/python-pandas-doc/html/reference/api"
    ),
    # and for the twenty-second: Tornado's documentation (Sphinx; its release notes, one short
    # page a release), aiohttp's (Sphinx, one flat directory), GDK's reference (gi-docgen);
    # APT's user guide in Italian, Dutch and Polish and its offline guide in Portuguese and
    # Japanese read from a package used before
    "tornado": DocTree(
        "python-tornado-doc", "usr/share/doc/python-tornado-doc/html", ("", "guide/", "releases/")
    ),
    "aiohttp": DocTree("python-aiohttp-doc", "usr/share/doc/python-aiohttp-doc/html"),
    "gdk": DocTree("libgtk-4-doc", "usr/share/doc/libgtk-4-doc/gdk4"),
    # and for the twenty-third (sixty-fourth session), packages never used before: SymPy's
    # documentation (Sphinx, nested five deep), Kombu's (its user guide and a page a module),
    # Pango's reference (gi-docgen); LilyPond's learning manual in Spanish, Italian and Japanese
    # and its usage manual in Spanish and Italian are read with its other manuals, above
    "sympy": DocTree(
        "python-sympy-doc",
        "usr/share/doc/python-sympy-doc/html",
        (
            "",
            "tutorial/",
            "tutorials/intro-tutorial/",
            "guides/",
            "explanation/",
            "modules/",
            "modules/combinatorics/",
            "modules/geometry/",
            "modules/matrices/",
            "modules/physics/",
            "modules/physics/mechanics/",
            "modules/physics/mechanics/api/",
            "modules/physics/quantum/",
            "modules/physics/units/",
            "modules/polys/",
            "modules/solvers/",
            "modules/utilities/",
        ),
    ),
    "kombu": DocTree(
        "python-kombu-doc",
        "usr/share/doc/python-kombu-doc/html",
        ("", "userguide/", "reference/"),
    ),
    "pango": DocTree("libpango1.0-doc", "usr/share/doc/libpango1.0-doc/reference/Pango"),
    # and for the twenty-fourth, packages never used before: SDL2's Doxygen reference (a page a
    # header or structure, filed in 208 hashed directories of one or two pages; its index page
    # links nothing), Hypothesis' documentation (Sphinx, one directory),
    # cairo's gtk-doc reference (a page a section); LilyPond's web pages in Spanish, Italian and
    # Japanese and its essay in Spanish and Italian are read with its other manuals, above
    "sdl2": DocTree(
        "libsdl2-doc", "usr/share/doc/libsdl2-doc/html", ("", "d?/d??/"), entry="annotated.html"
    ),
    "hypothesis": DocTree("python-hypothesis-doc", "usr/share/doc/python-hypothesis-doc/html"),
    "cairo": DocTree("libcairo2-doc", "usr/share/gtk-doc/html/cairo"),
    **{
        f"apt-offline-{language}": DocTree(
            "apt-doc", f"usr/share/doc/apt-doc/offline.{language}.html"
        )
        for language in ("pt", "ja")
    },
    # the sixty-second session's, packages never used before, for the web of manuals copied into
    # other sites' layouts (``retemplated.py``): Requests (Sphinx, nested), Babel, Jinja and attrs
    "requests": DocTree(
        "python-requests-doc",
        "usr/share/doc/python-requests-doc/html",
        ("", "community/", "dev/", "user/"),
    ),
    "babel": DocTree(
        "python-babel-doc", "usr/share/doc/python-babel-doc/html", ("", "api/", "api/messages/")
    ),
    "jinja": DocTree("python-jinja2-doc", "usr/share/doc/python-jinja2-doc/html"),
    "attrs": DocTree("python-attr-doc", "usr/share/doc/python-attr-doc/html"),
    # the twenty-fifth holdout's: mpmath's documentation (Sphinx, formulas as images), psycopg2's
    # (one flat directory), SWI-Prolog's reference manual (a page a section, its own generator)
    "mpmath": DocTree(
        "python-mpmath-doc", "usr/share/doc/python-mpmath-doc/html", ("", "calculus/", "functions/")
    ),
    "psycopg2": DocTree("python-psycopg2-doc", "usr/share/doc/python-psycopg2-doc/html"),
    "swi-manual": DocTree("swi-prolog-doc", "usr/share/swi-prolog/doc/Manual"),
    # Python's documentation in three releases, for the Python releases web (``pythons.py``): its
    # guides, its language reference and its "What's new" pages (one per release, rewritten),
    # the library's 300 module pages left out
    **{
        f"python-{release}": DocTree(
            f"python{release}-doc" + (f"@{suite}" if suite else ""),
            f"usr/share/doc/python{release}/html",
            ("", "extending/", "faq/", "howto/", "reference/", "tutorial/", "using/", "whatsnew/"),
        )
        for release, suite in PYTHON_RELEASES.items()
    },
    # four releases of one project's documentation, for the versions web (``versions.py``):
    # Sphinx pages that mostly carry over from one release to the next, some edited, some new,
    # the release notes rewritten every time (AMDGPU's thousands of generated pages left out)
    **{
        f"llvm-{release}": DocTree(
            f"llvm-{release}-doc",
            f"usr/share/doc/llvm-{release}-doc/html",
            (
                "",
                "CommandGuide/",
                "tutorial/",
                "tutorial/MyFirstLanguageFrontend/",
                "GlobalISel/",
                "PDB/",
                "Proposals/",
                "TableGen/",
            ),
        )
        for release in LLVM_RELEASES
    },
}
# Tornado's documentation with the plain-text sources its pages link ("Show Source"), for the
# ``sources`` web (sixty-sixth session)
TREES["tornado-sources"] = replace(
    TREES["tornado"], texts=("_sources/", "_sources/guide/", "_sources/releases/")
)


def read_tree(name: str, cache: Path = _CACHE) -> dict[str, str]:
    """The pages of tree ``name`` by path relative to its top (downloading its package if absent).

    A symbolic link stays a page of its own: the FAQ's ``x.html -> x.en.html`` are real aliases.
    ``javascript:`` and ``mailto:`` hrefs (sqlite's menus, authors' addresses) become ``#``: the
    test spider follows every href and fails on schemes it cannot fetch.
    """
    tree = TREES[name]
    top = unpacked(tree.package, cache) / tree.directory
    pages = {}
    for subdirectory in tree.subdirectories:
        for file in sorted(top.glob(subdirectory + "*" + tree.suffix)):
            if file.is_file() and file.stat().st_size <= _MAX_PAGE_BYTES:
                text = file.read_bytes().decode("utf-8", "surrogateescape")
                text = _SINGLE_QUOTED_HREF.sub(r'href="\1"', text)  # as copying tools write them
                pages[file.relative_to(top).as_posix()] = _OTHER_SCHEME_HREF.sub('href="#"', text)
    texts = {
        file.relative_to(top).as_posix(): file.read_bytes().decode("utf-8", "surrogateescape")
        for directory in tree.texts
        for file in sorted(top.glob(directory + "*.txt"))
        if file.is_file() and file.stat().st_size <= _MAX_PAGE_BYTES
    }
    served = pages.keys() | texts.keys()
    return {path: unbroken(path, body, served) for path, body in pages.items()} | texts


def unbroken(path: str, body: str, served: Iterable[str]) -> str:
    """Links to files of the package the web does not serve (images, text sources, pages left
    out) become ``#``: the web's broken links are the ones its copies make, not ours."""
    served = set(served)
    directory = posixpath.dirname(path)

    def repair(href: str) -> str:
        target = href.split("#")[0].split("?")[0]
        if not target or target.endswith("/") or "://" in target:
            return href
        resolved = posixpath.normpath(posixpath.join(directory, target))
        return href if resolved in served else "#"

    return rewrite_hrefs(body, repair)


def symlinks(name: str, cache: Path = _CACHE) -> dict[str, str]:
    """Pages of tree ``name`` that are symbolic links to another of its pages (path -> target)."""
    return _links(TREES[name], TREES[name], cache)


def borrowed(name: str, cache: Path = _CACHE) -> dict[str, str]:
    """Pages of tree ``name`` installed as symbolic links into its ``fallback`` tree (path -> the
    page's path there): copies of that tree's pages, not content of this one."""
    tree = TREES[name]
    return {} if tree.fallback is None else _links(tree, TREES[tree.fallback], cache)


def _links(tree: DocTree, into: DocTree, cache: Path) -> dict[str, str]:
    """``tree``'s pages that are symbolic links to a page of tree ``into`` (path -> target, each
    relative to its tree's top)."""
    top = unpacked(tree.package, cache) / tree.directory
    into_top = (unpacked(into.package, cache) / into.directory).resolve()
    links = {}
    for subdirectory in tree.subdirectories:
        for file in sorted(top.glob(subdirectory + "*" + tree.suffix)):
            target = file.resolve()
            if file.is_symlink() and target.is_relative_to(into_top):
                links[file.relative_to(top).as_posix()] = target.relative_to(into_top).as_posix()
    return links


def unpacked_packages(cache: Path = _CACHE) -> list[Path]:
    """Every package the trees are read from, unpacked (fetched when missing)."""
    return [
        unpacked(package, cache) for package in sorted({tree.package for tree in TREES.values()})
    ]


def unpacked(package: str, cache: Path = _CACHE) -> Path:
    """The package's files unpacked under the cache, fetched with apt-get when missing."""
    target = cache / "unpacked" / package
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    debs = list(cache.glob(f"{package}_*.deb"))
    if not debs:
        _download(package, cache)
        debs = list(cache.glob(f"{package}_*.deb"))
    # a directory of this call's own: two processes (a test run and a bench) may unpack the
    # same package at once, and one sharing a directory removed the other's files mid-unpack
    partial = Path(tempfile.mkdtemp(prefix=package + ".partial-", dir=target.parent))
    try:
        subprocess.run(["dpkg", "-x", str(debs[0]), str(partial)], check=True)
        partial.rename(target)
    except OSError:
        if not target.is_dir():  # not another call's unpacking finished first
            raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _download(package: str, cache: Path) -> None:
    """``apt-get download``, after ``apt-get update`` on a machine whose package lists are empty;
    ``PACKAGE@SUITE`` from that suite's pool."""
    if "@" in package:
        _download_from_suite(package, cache)
        return
    command = ["apt-get", "download", package]
    if subprocess.run(command, cwd=cache, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update"], check=True, capture_output=True)
        subprocess.run(command, cwd=cache, check=True, capture_output=True)


def _download_from_suite(package: str, cache: Path) -> None:
    """``PACKAGE@SUITE``'s ``.deb`` (an architecture-independent package: documentation is),
    found in the suite's ``binary-all`` index, saved as ``PACKAGE@SUITE_VERSION_all.deb``."""
    name, _, suite = package.partition("@")
    with urllib.request.urlopen(f"{_ARCHIVE}dists/{suite}/main/binary-all/Packages.xz") as index:
        stanzas = lzma.decompress(index.read()).decode("utf-8").split("\n\n")
    fields = next(
        (
            dict(line.split(": ", 1) for line in stanza.splitlines() if ": " in line)
            for stanza in stanzas
            if stanza.startswith(f"Package: {name}\n")
        ),
        None,
    )
    if fields is None:
        missing = f"{name} is not in Debian {suite}'s architecture-independent packages"
        raise LookupError(missing)
    target = cache / f"{package}_{fields['Version'].replace(':', '%3a')}_all.deb"
    partial = target.with_suffix(".partial")
    with urllib.request.urlopen(_ARCHIVE + fields["Filename"]) as deb:
        partial.write_bytes(deb.read())
    partial.rename(target)
