"""The evaluation web of issues 11 and 12, built from Debian documentation packages.

``build_eval_web("full")`` (2,948 URLs from seven packages) serves the benchmark;
``build_eval_web("small")`` (445 URLs from five small packages) serves the test suite;
``build_eval_web("holdout")`` (2,483 URLs) builds the same hazards from five other packages (vim's
help, Debian policy, the installation guide in three languages, the securing manual) on hosts
and directories that never name a copy as one (``NEUTRAL``). The hosts of the full web, in the
order a breadth-first crawl starts them:

- ``fast.mirror.test/docs/``: a copy of ``mirror.origin.test/pub/docs/``, itself a copy of
  ``www.origin.test/``; the copy of a copy lacks 30 % of the pages and is met first;
- ``tools.origin.test/docs/``: a manual with a version footer; ``stale.mirror.test/docs/`` holds
  it with an older version string on every page and 12 % of the pages before an edit;
  ``sid.mirror.test/docs/`` holds it with a session id in every link; ``copier.test/`` holds one
  of its directories (index and 70 % of the pages) at its root, linked from deeper in the web;
  the manual gained three pages after all three copies were made: no copy holds them, and the
  copies' pages that the origin's link them from lead nowhere there (``#``);
- ``guides.origin.test``: guides in several languages, one guide with its code rewritten (the
  same prose, other commands), a renamed copy of a guide on the same host;
  ``banner.mirror.test``: the whole host with a banner and a footer on every page;
- ``books.test``: a partial copy of a guide, and ``pub/notes/``, an autoindex that looks like
  ``archive.test/pub/notes/`` (same names, dates) over other pages; ``archive.test`` also keeps a
  newsletter linking the portal's news with tracking parameters;
- ``portal.test``: same-site aliases and content-selecting parameters (``portal``, ``news``).

Every directory without an index page has an autoindex with its four sorted views.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from random import Random
from urllib.parse import urlsplit

from testweb.copies import site_url
from testweb.crawl import page_links
from testweb.pages import directory_of
from testweb.site import TestWeb, page_served

from . import hazards, portal
from .hosts import HostsBuilder, Transform
from .notes import note_pages
from .packages import TREES, borrowed, read_tree, symlinks
from .truth import GroundTruth

_CODE_WORDS = {
    "dpkg": "rpm",
    "apt": "dnf",
    "debian": "fedora",
    "deb": "rpm",
    "debuild": "rpmbuild",
    "dch": "rpmdev-bumpspec",
}


@dataclass(frozen=True, slots=True)
class Hosts:
    """Which host plays which part, where the copies are filed, and the session id's name."""

    chain: tuple[str, str, str]  # the origin, its whole copy, the copy of that copy
    chain_dirs: tuple[str, str]  # the directories the copy and the copy of a copy are filed in
    tools: str
    stale: str
    session: str
    copier: str
    guides: str
    banner: str
    books: str
    archive: str
    session_parameter: str


NAMED = Hosts(
    ("www.origin.test", "mirror.origin.test", "fast.mirror.test"),
    ("pub/docs/", "docs/"),
    "tools.origin.test",
    "stale.mirror.test",
    "sid.mirror.test",
    "copier.test",
    "guides.origin.test",
    "banner.mirror.test",
    "books.test",
    "archive.test",
    "sid=6f1c2a9e",
)
# No host or directory names a copy as one, and the session id has another name: orientation
# must come from what the pages hold and link, not from the words the web happens to use.
NEUTRAL = Hosts(
    ("vimhelp.test", "docs.univ.test", "ftp.isp.test"),
    ("software/editors/vim/", "help/"),
    "policy.project.test",
    "policy.oldsite.test",
    "policy.app.test",
    "handbook.test",
    "install.project.test",
    "install.partner.test",
    "library.test",
    "lists.test",
    "PHPSESSID=a81c33f0d2",
)

# The second holdout's: other names again, and a session id whose name no default list holds.
OTHER = Hosts(
    ("developer.gtk.test", "mirrors.campus.test", "dl.cdn.test"),
    ("pub/gnome/docs/gio/", "gio/"),
    "zsh.project.test",
    "zsh.legacy.test",
    "zsh.shop.test",
    "shell-tips.test",
    "manuals.project.test",
    "manuals.partner.test",
    "docs.library.test",
    "notes.archive.test",
    "vid=0c5e7d1b94",
)
# The third holdout's: other names again, another session id's name.
THIRD = Hosts(
    ("xmlsoft.test", "ftp.nluug.test", "cache.isp.test"),
    ("pub/xml/libxml2/", "libxml2/"),
    "gnu.project.test",
    "gnu.oldmirror.test",
    "gnu.reader.test",
    "i18n-notes.test",
    "docs.kernel.test",
    "docs.partner.test",
    "books.univ.test",
    "history.archive.test",
    "visit=5d0e91c3b7",
)

# The fourth holdout's (twenty-second session): other names again, a one-letter session id.
FOURTH = Hosts(
    ("git.scm.test", "ftp.campus.test", "static.cdn.test"),
    ("pub/software/scm/git/", "git-docs/"),
    "vim.project.test",
    "vim.oldhost.test",
    "vim.webshop.test",
    "editor-tips.test",
    "debian.guides.test",
    "guides.partner.test",
    "docs.campus.test",
    "notes.lists.test",
    "s=4b7e1d0c93",
)


# The fifth holdout's (twenty-fourth session): other names again, a session id in a path-like name.
FIFTH = Hosts(
    ("docs.python.test", "ftp.sunet.test", "pydocs.cdn.test"),
    ("pub/lang/python/3.11/library/", "library/"),
    "guides.python.test",
    "python.oldmirror.test",
    "learn.python.test",
    "code-snippets.test",
    "httpd.project.test",
    "httpd.partner.test",
    "docs.univ5.test",
    "mail.archive.test",
    "jsessionid=A7F3C09B21",
)


# The sixth holdout's (thirty-first session): other names again, another session id's name.
SIXTH = Hosts(
    ("docs.gnome.test", "ftp.mirrorservice.test", "api.cdn.test"),
    ("sites/gnome/docs/gdk-pixbuf/", "gdk-pixbuf/"),
    "crypto.project.test",
    "crypto.archive.test",
    "crypto.store.test",
    "security-notes.test",
    "live.project.test",
    "live.partner.test",
    "docs.college.test",
    "digest.lists.test",
    "sessid=e27b90c4d1",
)


# The seventh holdout's (thirty-first session, later): other names again.
SEVENTH = Hosts(
    ("libvirt.project.test", "ftp.kernel-mirror.test", "virt.cdn.test"),
    ("pub/virt/libvirt/", "libvirt/"),
    "mail.project.test",
    "mail.legacy.test",
    "mail.hosting.test",
    "admin-tips.test",
    "mua.project.test",
    "mua.partner.test",
    "lib.university.test",
    "announce.lists.test",
    "token=4fa09c1e7b",
)


# The eighth holdout's (thirty-second session): other names again.
EIGHTH = Hosts(
    ("www.pgsql.test", "ftp.univ-mirror.test", "pg.cdn.test"),
    ("pub/databases/postgresql/15/", "pgdocs/"),
    "build.project.test",
    "build.oldmirror.test",
    "build.reader.test",
    "cmake-tips.test",
    "help.gimp.test",
    "gimp.partner.test",
    "graphics.library.test",
    "digest.archive.test",
    "ref=9d2c7a41e0",
)


# The ninth holdout's (thirty-fourth session): other names again.
NINTH = Hosts(
    ("octave.project.test", "ftp.gwdg-mirror.test", "sci.cdn.test"),
    ("pub/gnu/octave/doc/", "octave-manual/"),
    "soup.project.test",
    "soup.oldmirror.test",
    "soup.reader.test",
    "http-tips.test",
    "handbook.project.test",
    "handbook.partner.test",
    "stacks.library.test",
    "bulletin.archive.test",
    "sesskey=71b3e0d9c5",
)


# The tenth holdout's (thirty-sixth session): other names again.
TENTH = Hosts(
    ("www.boost.test", "ftp.fau-archive.test", "cpp.cdn.test"),
    ("pub/boost/1.74/doc/html/", "boost-docs/"),
    "gtkmm.project.test",
    "gtkmm.webspace.test",
    "gtkmm.reader.test",
    "cxx-notes.test",
    "lilypond.project.test",
    "lilypond.partner.test",
    "music.library.test",
    "gazette.archive.test",
    "uid=c83f05a2e6",
)


# The eleventh holdout's (thirty-seventh session): other names again.
ELEVENTH = Hosts(
    ("www.jfree.test", "ftp.sunsite-archive.test", "java.cdn.test"),
    ("pub/java/jfreechart/1.0.19/javadoc/", "jfreechart-api/"),
    "gnuplot.project.test",
    "gnuplot.oldhost.test",
    "gnuplot.viewer.test",
    "plotting-tips.test",
    "gosa.project.test",
    "gosa.partner.test",
    "sysadmin.library.test",
    "bulletin.archive.test",
    "cid=3e8a5f07b2",
)


# The twelfth holdout's (thirty-eighth session): other names again.
TWELFTH = Hosts(
    ("www.sleepycat.test", "ftp.nic-archive.test", "db.cdn.test"),
    ("pub/databases/berkeley-db/5.3/", "bdb-docs/"),
    "udo.project.test",
    "udo.oldsite.test",
    "udo.reader.test",
    "textformat-tips.test",
    "packaging.project.test",
    "packaging.partner.test",
    "dev.library.test",
    "notices.archive.test",
    "vsid=2d9f6b0e81",
)

THIRTEENTH = Hosts(
    ("docs.djangoproject.test", "ftp.heanet-mirror.test", "py.cdn.test"),
    ("pub/python/django/3.2/", "django-docs/"),
    "wireshark.project.test",
    "wireshark.oldmirror.test",
    "wireshark.reader.test",
    "capture-howto.test",
    "engraving.project.test",
    "engraving.partner.test",
    "music.library.test",
    "notices.gis.test",
    "wsid=7c1e94a2d3",
)

FOURTEENTH = Hosts(
    ("www.exim.test", "ftp.mailserv-mirror.test", "mta.cdn.test"),
    ("pub/mail/exim/4.96/", "exim-spec/"),
    "sphinx.project.test",
    "sphinx.oldmirror.test",
    "sphinx.reader.test",
    "doc-builders.test",
    "newmaint.guides.test",
    "newmaint.partner.test",
    "apt.library.test",
    "notices.build.test",
    "rsid=4b8e2f1a7c",
)

FIFTEENTH = Hosts(
    ("www.erlang.test", "ftp.otp-mirror.test", "beam.cdn.test"),
    ("pub/lang/erlang/otp-25/", "otp-docs/"),
    "sqla.project.test",
    "sqla.oldmirror.test",
    "sqla.reader.test",
    "orm-recipes.test",
    "reference.guides.test",
    "reference.partner.test",
    "devref.library.test",
    "notices.node.test",
    "psid=91d3a7c05e",
)

SIXTEENTH = Hosts(
    ("www.rsyslog.test", "ftp.logging-mirror.test", "syslog.cdn.test"),
    ("pub/admin/rsyslog/8.2302/", "rsyslog-docs/"),
    "flask.project.test",
    "flask.oldmirror.test",
    "flask.reader.test",
    "web-patterns.test",
    "aptitude.guides.test",
    "aptitude.partner.test",
    "pkgdocs.library.test",
    "notices.cas.test",
    "fsid=b3c72e09a4",
)

SEVENTEENTH = Hosts(
    ("www.doxygen.test", "ftp.codedoc-mirror.test", "apidocs.cdn.test"),
    ("pub/devel/doxygen/1.9.4/", "doxygen-manual/"),
    "werkzeug.project.test",
    "werkzeug.oldmirror.test",
    "werkzeug.reader.test",
    "wsgi-deploy.test",
    "faq.guides.test",
    "faq.partner.test",
    "handbook.library.test",
    "notices.click.test",
    "ksid=7d2e91b4c0",
)

EIGHTEENTH = Hosts(
    ("www.stl.test", "ftp.cxx-mirror.test", "stl.cdn.test"),
    ("pub/lang/cxx/stl/3.3/", "stl-guide/"),
    "markdown.project.test",
    "markdown.oldmirror.test",
    "markdown.reader.test",
    "md-extensions.test",
    "maint.guides.test",
    "maint.partner.test",
    "packaging.library.test",
    "notices.ada.test",
    "msid=5a8e3f1d72",
)

NINETEENTH = Hosts(
    ("docs.pytest.test", "ftp.pydev-mirror.test", "pytest.cdn.test"),
    ("pub/python/pytest/7.2/", "pytest-docs/"),
    "crypto.project.test",
    "crypto.oldmirror.test",
    "crypto.reader.test",
    "hazmat-notes.test",
    "apt.guides.test",
    "apt.partner.test",
    "handbooks.library.test",
    "notices.asy.test",
    "psid=c41f09e7b3",
)


TWENTIETH = Hosts(
    ("setuptools.pypa.test", "ftp.pkg-archive.test", "setuptools.edge.test"),
    ("pub/python/setuptools/65/", "st-docs/"),
    "lxml.project.test",
    "lxml.oldmirror.test",
    "lxml.reader.test",
    "xml-api-notes.test",
    "live.guides.test",
    "live.partner.test",
    "handbooks.univ.test",
    "notices.gsk.test",
    "lsid=9e2b7c4d18",
)


TWENTY_FIRST = Hosts(
    ("docs.scrapy.test", "mirror.crawl-tools.test", "scrapy.cdn.test"),
    ("pub/python/scrapy/2.8/", "scrapy-docs/"),
    "celery.project.test",
    "celery.oldmirror.test",
    "celery.reader.test",
    "task-queue-notes.test",
    "live-i18n.guides.test",
    "live-i18n.partner.test",
    "library.tech.test",
    "notices.pandas.test",
    "jsid=4f8a2c6e91",
)

TWENTY_SECOND = Hosts(
    ("www.tornadoweb.test", "ftp.webdev-mirror.test", "tornado.cdn.test"),
    ("pub/python/tornado/6.2/", "tornado-docs/"),
    "aiohttp.project.test",
    "aiohttp.oldmirror.test",
    "aiohttp.reader.test",
    "async-notes.test",
    "apt-i18n.guides.test",
    "apt-i18n.partner.test",
    "library.campus.test",
    "notices.gdk.test",
    "asid=7c3e5a9b20",
)

TWENTY_THIRD = Hosts(
    ("docs.sympy.test", "ftp.math-mirror.test", "sympy.cdn.test"),
    ("pub/python/sympy/1.11/", "sympy-docs/"),
    "kombu.project.test",
    "kombu.oldmirror.test",
    "kombu.reader.test",
    "messaging-notes.test",
    "lily-i18n.guides.test",
    "lily-i18n.partner.test",
    "library.music.test",
    "notices.pango.test",
    "visit=5b2e8d0c47",
)


TWENTY_FOURTH = Hosts(
    ("wiki.libsdl.test", "mirror.gamedev.test", "sdl.cdn.test"),
    ("pub/sdl/2.26/", "sdl-docs/"),
    "hypothesis.project.test",
    "hypothesis.oldmirror.test",
    "hypothesis.reader.test",
    "testing-notes.test",
    "lily-web.guides.test",
    "lily-web.partner.test",
    "library.conservatory.test",
    "notices.cairo.test",
    "ticket=9a1c4e7f30",
)


TWENTY_FIFTH = Hosts(
    ("mpmath.org.test", "ftp.numerics.test", "mpmath.cdn.test"),
    ("pub/python/mpmath/1.2/", "mpmath-docs/"),
    "psycopg.project.test",
    "psycopg.oldmirror.test",
    "psycopg.reader.test",
    "database-notes.test",
    "install.guides.test",
    "install.partner.test",
    "library.polytechnic.test",
    "notices.swi.test",
    "token=e41d7c09b2",
)


@dataclass(frozen=True, slots=True)
class Layout:
    """Which package tree plays which part, on which hosts."""

    chain: str  # copied, then copied again from the copy
    stale: str  # stale, session-id and copier copies
    copier_dir: str  # the directory of ``stale`` the copier takes
    guides: tuple[str, ...]  # the guides host; the first also gets a code edition
    manual: tuple[str, str]  # the portal's manual: English and French trees
    notes: str | None  # pages behind the look-alike listings and the catalogue (None: generated)
    notes_each: int  # pages under each look-alike listing, and items in the portal's catalogue
    news: int  # the portal's news items (release notes after those above)
    versions: tuple[str, str] = ("2.39.5", "2.39.2")  # the stale tree's, then its copy's
    hosts: Hosts = NAMED
    # pages of the chain's package that are byte for byte another of its pages (an edition's
    # page where no code differs) share that page's content key: one document under two URLs
    identical_pages: bool = False
    # the copy of a copy answers 200 with one "not found" page (a soft 404) for every URL it
    # has no page for, as a mirror whose server sends its error page with status 200 does; the
    # truth files it at every path of the chain the copy lacks
    soft_404: bool = False


LAYOUTS = {
    "full": Layout(
        "sqlite",
        "git",
        "howto/",
        ("maint-guide-en", "maint-guide-fr", "faq"),
        ("reference-en", "reference-fr"),
        "sqlite-releases",
        40,
        105,
    ),
    # the guides include a partial translation (the Apache manual's German edition), so that the
    # crawl the test suite runs meets one
    "small": Layout(
        "faq",
        "maint-guide-fr",
        "",
        ("maint-guide-en", "apache-en", "apache-de"),
        ("devref-en", "devref-fr"),
        None,
        12,
        12,
    ),
    # other packages and neutral names: a check that no figure depends on the full web's choices
    "holdout": Layout(
        "vim",
        "policy",
        "policy.html/",
        ("install-en", "install-fr", "install-de"),
        ("harden-en", "harden-fr"),
        None,
        40,
        80,
        ("4.6.2.0", "4.6.1.0"),
        NEUTRAL,
    ),
    # packages chosen after the code was written (thirteenth session): generated API reference
    # pages (gio), a flat manual (zsh), a guide in two languages (aptitude), the handbook
    "holdout2": Layout(
        "gio",
        "zsh",
        "",
        ("aptitude-en", "aptitude-fr"),
        ("handbook-en", "handbook-fr"),
        None,
        40,
        80,
        ("5.9.0", "5.8.1"),
        OTHER,
    ),
    # packages chosen in the eighteenth session, after the code: generated API pages as the
    # chain, a contents page that is no index page as the stale manual's top, one history in
    # four languages (two as guides, two as the portal's manual)
    "holdout3": Layout(
        "libxml2",
        "gettext",
        "",
        ("kernel-handbook", "history-en", "history-fr"),
        ("history-de", "history-es"),
        None,
        40,
        80,
        ("0.21", "0.19.8"),
        THIRD,
    ),
    # the twenty-second session's: trees the other webs use, each in a part it never played
    # (git's manual as the chain, vim's help as the stale manual, the French packaging guide
    # with a code edition, the developers' reference in two languages as guides, the
    # installation guide's French and German editions as the portal's manual)
    "holdout4": Layout(
        "git",
        "vim",
        "",
        ("maint-guide-fr", "devref-en", "devref-fr"),
        ("install-fr", "install-de"),
        None,
        40,
        80,
        ("9.0.1378", "9.0.0749"),
        FOURTH,
    ),
    # the twenty-fourth session's, packages never used before, chosen after the code: Sphinx
    # pages (Python's library reference as the chain; howtos, tutorial and C API as the stale
    # manual) and the Apache manual in English and two partial translations as guides
    "holdout5": Layout(
        "python-library",
        "python-guides",
        "",
        ("apache-en", "apache-de", "apache-ja"),
        ("aptitude-en", "aptitude-fr"),
        None,
        40,
        80,
        ("3.11.2", "3.11.0"),
        FIFTH,
    ),
    # the thirty-first session's, packages never used before, chosen after the code: gi-docgen
    # API pages as the chain, a texinfo manual as the stale one, the live-system manual in three
    # languages (one directory, a suffix each) as guides, dia's manual in two as the portal's
    "holdout6": Layout(
        "gdk-pixbuf",
        "gcrypt",
        "",
        ("live-en", "live-fr", "live-de"),
        ("dia-en", "dia-fr"),
        None,
        40,
        80,
        ("1.10.1", "1.8.9"),
        SIXTH,
    ),
    # the thirty-first session's second, after the change it found: a nested manual as the
    # chain, READMEs and man pages as the stale manual, a manual whose pages name no charset in
    # three languages as guides, a short handbook in two as the portal's
    "holdout7": Layout(
        "libvirt",
        "postfix",
        "",
        ("sylpheed-en", "sylpheed-fr", "sylpheed-de"),
        ("bibletime-en", "bibletime-fr"),
        None,
        40,
        80,
        ("3.7.11", "3.5.18"),
        SEVENTH,
    ),
    # the thirty-second session's, packages never used before and three to five times larger,
    # as the independent web is (some 10,700 pages on 14 hosts): a manual of 1,154 pages in one
    # directory as the chain, a reference of one page an item from one template as the stale
    # manual (its commands' directory taken by the copier), one help in two languages as guides
    "holdout8": Layout(
        "postgresql",
        "cmake",
        "command/",
        ("gimp-en", "gimp-de"),
        ("history-de", "history-es"),
        None,
        40,
        80,
        ("3.25.1", "3.24.2"),
        EIGHTH,
    ),
    # the thirty-fourth session's, packages never used before in these parts, chosen after the
    # code: Octave's manual (2,858 texinfo nodes in one directory) as the chain, libsoup's
    # reference (a page a symbol from gi-docgen's templates) as the stale manual, the Debian
    # handbook in Spanish (with a code edition), Italian and Portuguese as guides
    "holdout9": Layout(
        "octave",
        "libsoup",
        "",
        ("handbook-es", "handbook-it", "handbook-pt"),
        ("install-es", "install-it"),
        None,
        40,
        80,
        ("3.2.3", "3.2.2"),
        NINTH,
    ),
    # the thirty-sixth session's, packages never used before: Boost's BoostBook reference (a
    # page a class or function, a directory a namespace, nested) as the chain, glibmm's Doxygen
    # reference (a page a class and its members' list, one directory) as the stale manual,
    # LilyPond's learning manual in English (with a code edition), German and French (a suffix
    # each) as guides, GnuCash's help in English and German as the portal's manual
    "holdout10": Layout(
        "boost",
        "glibmm",
        "",
        ("lilypond-en", "lilypond-de", "lilypond-fr"),
        ("gnucash-help-en", "gnucash-help-de"),
        None,
        40,
        80,
        ("2.66.5", "2.66.4"),
        TENTH,
    ),
    # the thirty-seventh session's, packages never used before: JFreeChart's Javadoc reference (a
    # page a class from one template, a directory a Java package, nested, each with its
    # class-use pages) as the chain, gnuplot's latex2html manual (651 nodes in one directory)
    # as the stale manual, GOsa's help in English (with a code edition), German and French (a
    # package and a directory a plugin each) as guides, TeXworks' manual in English and French
    # as the portal's manual
    "holdout11": Layout(
        "jfreechart",
        "gnuplot",
        "",
        ("gosa-help-en", "gosa-help-de", "gosa-help-fr"),
        ("texworks-en", "texworks-fr"),
        None,
        40,
        80,
        ("5.4.4", "5.4.2"),
        ELEVENTH,
    ),
    # the thirty-eighth session's, packages never used before: Berkeley DB's documentation (C,
    # C++ and Tcl API references and getting-started guides in C, C++ and Java editions side by
    # side, nested; identical pages across editions) as the chain, its copy of a copy answering
    # soft 404s, UDO's German manual (one directory, numbered pages) as the stale manual, the
    # Ubuntu packaging guide in English (with a code edition), German and French (Sphinx i18n)
    # as guides, Double Commander's help in English and Russian as the portal's manual
    "holdout12": Layout(
        "bdb",
        "udo-de",
        "",
        ("ubuntu-packaging-en", "ubuntu-packaging-de", "ubuntu-packaging-fr"),
        ("doublecmd-en", "doublecmd-ru"),
        None,
        40,
        80,
        ("6.4.1", "6.4.0"),
        TWELFTH,
        identical_pages=True,
        soft_404=True,
    ),
    "holdout13": Layout(
        "django",
        "wireshark",
        "",
        ("lilypond-usage-en", "lilypond-usage-fr", "lilypond-usage-de"),
        ("lilypond-extending-en", "lilypond-extending-fr"),
        "grass",
        40,
        80,
        ("4.0.17", "4.0.15"),
        THIRTEENTH,
    ),
    # the fifty-second session's, packages never used before: Exim's specification as the
    # chain (every chapter under two names, byte for byte), Sphinx's own documentation as the
    # stale manual (nested; the copier takes its usage/), the new maintainers' guide in Spanish
    # (with a code edition), Italian and English as guides, the Debian handbook in Portuguese
    # and Italian as the portal's manual (aptitude's Spanish and Czech editions were tried: their
    # generated page names differ, and the portal serves an edition's pages under the other's
    # names, so 72 of a crawl's fetches were 404s of the portal's making), SCons' user guide as
    # the notes
    "holdout14": Layout(
        "exim",
        "sphinx",
        "usage/",
        ("maint-guide-es", "maint-guide-it", "maint-guide-en"),
        ("handbook-pt", "handbook-it"),
        "scons",
        40,
        80,
        ("5.3.0", "5.1.1"),
        FOURTEENTH,
        identical_pages=True,
    ),
    # the fifty-third session's, packages never used before, chosen after the code: Erlang/OTP's
    # system documentation as the chain, SQLAlchemy's as the stale manual (the copier takes its
    # ``core/``), the Debian reference in Italian (with a code edition), Spanish and German as
    # guides, the developers' reference in German and Italian as the portal's manual, Node.js's
    # API reference as notes
    "holdout15": Layout(
        "erlang",
        "sqlalchemy",
        "core/",
        ("reference-it", "reference-es", "reference-de"),
        ("devref-de", "devref-it"),
        "nodejs",
        40,
        80,
        ("1.4.46", "1.4.39"),
        FIFTEENTH,
    ),
    # the fifty-seventh session's, packages never used before: rsyslog's documentation is the
    # chain (Sphinx pages nested four directories deep, nearly every directory with its own
    # index page), Flask's documentation the stale manual (Sphinx again, 2.2.2 against the
    # 2.1.3 its contents page lists; the copier takes its ``patterns/``), aptitude's manual in
    # Spanish (with a code edition), Czech and Japanese the guides (DocBook chunks whose
    # generated names differ from one language to the next, which guides may do and the
    # portal's manual may not), the developers' reference in Japanese and Russian the portal's
    # manual (the same eight Sphinx pages in each, once the four over the size limit are left
    # out), and Maxima's texinfo nodes the notes
    "holdout16": Layout(
        "rsyslog",
        "flask",
        "patterns/",
        ("aptitude-es", "aptitude-cs", "aptitude-ja"),
        ("devref-ja", "devref-ru"),
        "maxima",
        40,
        80,
        ("2.2.2", "2.1.3"),
        SIXTEENTH,
    ),
    # the fifty-eighth session's, packages never used before: Doxygen's manual is the chain (a
    # flat chapter directory over 28 example projects' generated pages, each project's under
    # ``examples/NAME/html/`` with no index page at ``examples/`` or ``examples/NAME/``),
    # Werkzeug's documentation the stale manual (Sphinx, 2.2.2 against 2.2.1; the copier takes
    # its ``deployment/``), the Debian FAQ in German (with a code edition), Dutch and Russian the
    # guides, the Debian handbook in German and Russian the portal's manual, Click's
    # documentation the notes
    "holdout17": Layout(
        "doxygen",
        "werkzeug",
        "deployment/",
        ("faq-de", "faq-nl", "faq-ru"),
        ("handbook-de", "handbook-ru"),
        "click",
        40,
        80,
        ("2.2.2", "2.2.1"),
        SEVENTEENTH,
    ),
    # the fifty-ninth session's, packages never used before: SGI's STL guide is the chain (236
    # pages in one directory), Python-Markdown's documentation the stale manual (MkDocs, 3.4.1
    # against 3.4.0; the copier takes its ``extensions/``), maint-guide in German (with a code
    # edition), Japanese and Russian the guides, the Ubuntu packaging guide in Spanish and
    # Russian the portal's manual, the Ada 2012 reference manual's clauses the notes
    "holdout18": Layout(
        "stl",
        "markdown",
        "extensions/",
        ("maint-guide-de", "maint-guide-ja", "maint-guide-ru"),
        ("ubuntu-packaging-es", "ubuntu-packaging-ru"),
        "ada-rm",
        40,
        80,
        ("3.4.1", "3.4.0"),
        EIGHTEENTH,
    ),
    # the sixty-first session's, packages never used before: pytest's documentation is the chain
    # (Sphinx, with 153 release announcements of one template in ``announce/``), cryptography's
    # the stale manual (Sphinx nested three deep, 38.0.4 against 38.0.3; the copier takes its
    # ``hazmat/primitives/``: ``hazmat/`` has no index page, and a copier's top must have one),
    # APT's user guide in French (with a code edition), German and Spanish the guides (five
    # DocBook pages each, named alike in every language), the puzzle collection's help in
    # English and German the portal's manual, Asymptote's texinfo nodes the notes
    "holdout19": Layout(
        "pytest",
        "cryptography",
        "hazmat/primitives/",
        ("apt-guide-fr", "apt-guide-de", "apt-guide-es"),
        ("puzzles-en", "puzzles-de"),
        "asymptote",
        40,
        80,
        ("38.0.4", "38.0.3"),
        NINETEENTH,
    ),
    # the sixty-second session's, packages never used before: setuptools' documentation is the
    # chain (Sphinx, four sections), lxml's the stale manual (4.9.2 against 4.9.1; the copier
    # takes its API reference, ``apidoc/``), live-manual's Spanish (with a code edition), Italian
    # and Brazilian Portuguese editions the guides (22 pages each, named by their language), the
    # Debian project history's Italian and Japanese editions the portal's manual, GSK's
    # reference (gi-docgen, one short page a class or method from one template) the notes
    "holdout20": Layout(
        "setuptools",
        "lxml",
        "apidoc/",
        ("live-es", "live-it", "live-pt_BR"),
        ("history-it", "history-ja"),
        "gsk",
        40,
        80,
        ("4.9.2", "4.9.1"),
        TWENTIETH,
    ),
    # the sixty-second session's too, packages never used before: Scrapy's documentation is the
    # chain, Celery's the stale manual (5.2.6 against 5.2.5; the copier takes its user guide),
    # live-manual's Catalan (with a code edition), Polish and Romanian editions the guides, the
    # project history's Korean and Lithuanian editions the portal's manual, pandas' API
    # reference (a page a function or method, from one template) the notes
    "holdout21": Layout(
        "scrapy",
        "celery",
        "userguide/",
        ("live-ca", "live-pl", "live-ro"),
        ("history-ko", "history-lt"),
        "pandas-api",
        40,
        80,
        ("5.2.6", "5.2.5"),
        TWENTY_FIRST,
    ),
    # and another: Tornado's documentation is the chain (with its release notes, a page a
    # release), aiohttp's the stale manual (one flat directory: the copier takes it whole),
    # APT's user guide in Italian (with a code edition), Dutch and Polish the guides, its
    # offline guide in Portuguese and Japanese the portal's manual, GDK's reference the notes
    "holdout22": Layout(
        "tornado",
        "aiohttp",
        "",
        ("apt-guide-it", "apt-guide-nl", "apt-guide-pl"),
        ("apt-offline-pt", "apt-offline-ja"),
        "gdk",
        40,
        80,
        ("3.8.4", "3.8.3"),
        TWENTY_SECOND,
    ),
    # the sixty-fourth session's, packages never used before: SymPy's documentation (Sphinx,
    # nested five deep) is the chain, Kombu's the stale manual (5.2.4 against 5.2.3; the copier
    # takes its user guide), LilyPond's learning manual in Spanish (with a code edition),
    # Italian and Japanese the guides, its usage manual in Spanish and Italian the portal's
    # manual, Pango's reference (a page a symbol) the notes; the session id is named ``visit``
    "holdout23": Layout(
        "sympy",
        "kombu",
        "userguide/",
        ("lilypond-es", "lilypond-it", "lilypond-ja"),
        ("lilypond-usage-es", "lilypond-usage-it"),
        "pango",
        40,
        80,
        ("5.2.4", "5.2.3"),
        TWENTY_THIRD,
    ),
    # and another: SDL2's Doxygen reference is the chain, Hypothesis' documentation the stale
    # manual (6.67.1 against 6.67.0; one flat directory, the copier takes it whole), LilyPond's
    # web pages in Spanish (with a code edition), Italian and Japanese the guides, its essay in
    # Spanish and Italian the portal's manual, cairo's reference the notes; the session id is
    # named ``ticket``
    "holdout24": Layout(
        "sdl2",
        "hypothesis",
        "",
        ("lilypond-web-es", "lilypond-web-it", "lilypond-web-ja"),
        ("lilypond-essay-es", "lilypond-essay-it"),
        "cairo",
        40,
        80,
        ("6.67.1", "6.67.0"),
        TWENTY_FOURTH,
    ),
    # the sixty-seventh session's, packages never used before: mpmath's documentation is the
    # chain, psycopg2's the stale manual (2.9.5 against 2.9.4; one flat directory, the copier
    # takes it whole), the installation guide in Dutch (with a code edition), Portuguese and
    # Russian the guides, in Swedish and Czech the portal's manual, SWI-Prolog's reference manual
    # the notes; the session id is named ``token``
    "holdout25": Layout(
        "mpmath",
        "psycopg2",
        "",
        ("install-nl", "install-pt", "install-ru"),
        ("install-sv", "install-cs"),
        "swi-manual",
        40,
        80,
        ("2.9.5", "2.9.4"),
        TWENTY_FIFTH,
    ),
}
# the twenty-second holdout's with its chain's plain-text sources served (Sphinx's ``_sources/``,
# ``text/plain``), which Tornado's pages link as "Show Source": the sixty-sixth session's, to
# measure plain-text documents judged
LAYOUTS["sources"] = replace(LAYOUTS["holdout22"], chain="tornado-sources")


@dataclass(frozen=True, slots=True)
class EvalWeb:
    pages: dict[str, bytes]
    start_urls: list[str]
    truth: GroundTruth
    redirects: dict[str, str] = field(default_factory=dict)  # URL -> where a 301 sends it
    # host -> the page it answers, status 200, for any URL it has no page for (``soft_404``)
    soft_404_hosts: dict[str, bytes] = field(default_factory=dict)
    # its servers answer a URL with a query they have no page for with its path's page
    # (``testweb.site.page_served``; ``bench/eval_web.py --query-blind``)
    query_blind: bool = False

    def test_web(self) -> TestWeb:
        """The web as ``testweb.server.serve`` takes it."""
        originals = {url for url, kind in self.truth.kinds.items() if kind == "original"}
        return TestWeb(
            seed=0,
            scale="eval",
            pages=self.pages,
            assets={},
            start_urls=self.start_urls,
            mirrors=[],
            traps=[],
            boilerplate_urls=set(),
            near_duplicates={},
            exact_duplicates={},
            originals=originals,
            redirects=self.redirects,
            soft_404_hosts=self.soft_404_hosts,
            query_blind=self.query_blind,
        )

    def served(self) -> Mapping[str, bytes]:
        """What the server answers with status 200, URL by URL: the pages, and a soft-404
        host's "not found" page for any other URL of that host (what a scorer judges a drop
        by: the filter's own probes for an absent URL are such URLs), and on a query-blind web
        the path's page for a URL with a query it has no page for."""
        if not (self.soft_404_hosts or self.query_blind):
            return self.pages
        return _Served(self.pages, self.soft_404_hosts, self.query_blind)

    def save_truth(self, directory: Path) -> Path:
        path = directory / "truth.json"
        self.truth.save(path)
        return path


class _Served(Mapping[str, bytes]):
    def __init__(
        self, pages: dict[str, bytes], soft_404_hosts: dict[str, bytes], query_blind: bool
    ) -> None:
        self._pages, self._soft, self._query_blind = pages, soft_404_hosts, query_blind

    def __getitem__(self, url: str) -> bytes:
        page = page_served(self._pages, url, self._query_blind)
        if page is not None:
            return page
        soft = self._soft.get(urlsplit(url).hostname or "")
        if soft is None:
            raise KeyError(url)
        return soft

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and super().__contains__(url)  # ``__getitem__`` decides

    def __iter__(self) -> Iterator[str]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)


def build_eval_web(scale: str = "full", seed: int = 0) -> EvalWeb:
    layout = LAYOUTS[scale]
    web = HostsBuilder()
    rng = Random(seed)
    lacked = _chain(web, layout, rng)
    _tools(web, layout, rng)
    _guides(web, layout, rng)
    each = layout.notes_each
    notes = note_pages(layout.notes, layout.manual[0], 3 * each + layout.news)
    chapters, news = portal.build_portal(
        web, _manual(layout), notes[2 * each : 3 * each], notes[3 * each :]
    )
    _look_alikes(web, layout.hosts, notes, each, chapters, news)
    web.list_directories()
    hosts = layout.hosts
    if layout.soft_404:  # after the listings: a server lists the files it has
        _soft_404s(web, hosts.chain[2], lacked)
    web.with_session(hosts.session, hosts.session_parameter)
    session_name = hosts.session_parameter.partition("=")[0]
    web.truth.alias_parameters = [*portal.ALIAS_PARAMETERS, session_name, "C", "O"]
    web.truth.trap_parameters = list(portal.TRAP_PARAMETERS)
    starts = [
        hosts.chain[2],
        hosts.chain[0],
        hosts.chain[1],
        hosts.tools,
        hosts.stale,
        hosts.session,
        hosts.guides,
        hosts.banner,
        hosts.books,
        hosts.archive,
        portal.HOST,
    ]
    start_urls = [
        site_url(host, "?" + hosts.session_parameter if host == hosts.session else "")
        for host in starts
    ]
    pages = web.pages()
    # the copy of a copy's server answers every URL it has no page for with its "not found" page
    soft_404_hosts = {hosts.chain[2]: SOFT_404.encode("utf-8")} if layout.soft_404 else {}
    return EvalWeb(pages, start_urls, web.truth, soft_404_hosts=soft_404_hosts)


def _chain(web: HostsBuilder, layout: Layout, rng: Random) -> list[str]:
    """The origin, its whole copy filed deeper, and a copy of that copy lacking 30 %; returns
    the paths the copy of a copy lacks."""
    origin, mirror, fast = layout.hosts.chain
    filed, refiled = layout.hosts.chain_dirs
    web.place(origin, "", layout.chain, read_tree(layout.chain), symlinks(layout.chain))
    if layout.identical_pages:
        _identical_pages_shared(web, origin)
    web.copy((origin, ""), (mirror, filed), "renamed_subdirectory", "chain")
    entry = TREES[layout.chain].entry
    lacking = _lacking(web.hosts[mirror], filed, 0.3, rng, entry)
    web.copy(
        (mirror, filed),
        (fast, refiled),
        "copy_of_copy_partial",
        "chain",
        _without(lacking, filed, refiled),
    )
    for host, directory in ((origin, ""), (mirror, filed), (fast, refiled)):
        web.front_page(host, f"{layout.chain} at {host}", [(directory + entry, "The manual")])
    return sorted(refiled + path[len(filed) :] for path in lacking)


def _identical_pages_shared(web: HostsBuilder, host: str) -> None:
    """Pages of ``host`` byte for byte an earlier one (by path) hold that page's content."""
    first: dict[str, str] = {}
    for path, body in sorted(web.hosts[host].items()):
        if body in first:
            web.truth.contents[site_url(host, path)] = web.content(host, first[body])
        else:
            first[body] = path


SOFT_404 = hazards.plain_page(
    "Page not found",
    "<p>Sorry, the page you asked for is not on this server. It may have moved, or the mirror "
    'may not have caught up yet.</p>\n<p><a href="/">Back to the home page</a></p>\n',
)


def _soft_404s(web: HostsBuilder, host: str, lacked: list[str]) -> None:
    """``host``'s "not found" page, filed at every path in ``lacked`` (its server answers it,
    status 200, for any other URL it has no page for too: ``EvalWeb.soft_404_hosts``): no
    document of its own, and a copy of none (``truth.NOT_DOCUMENTS``)."""
    for path in lacked:
        web.put(host, path, SOFT_404, f"soft_404:{host}", "soft_404")


def _tools(web: HostsBuilder, layout: Layout, rng: Random) -> None:
    hosts = layout.hosts
    tools, stale_host, session, copier = hosts.tools, hosts.stale, hosts.session, hosts.copier
    current, old = layout.versions
    pages = {
        path: hazards.with_version(body, current) for path, body in read_tree(layout.stale).items()
    }
    aliases = symlinks(layout.stale)
    web.place(tools, "docs/", layout.stale, pages, aliases)
    edited = set(_lacking(web.hosts[tools], "docs/", 0.12, rng))
    # pages the manual gained after every copy of it was made: no copy holds or links them
    added = _added(tools, web.hosts[tools], aliases, 3)

    def restamped(body: str) -> str:
        return body.replace(f"Manual version {current}", f"Manual version {old}")

    def stale(path: str, body: str) -> str:
        return (hazards.edited(restamped(body), rng) if path in edited else None) or restamped(body)

    copied_before = _before(added, "docs/", "docs/", stale)
    web.copy((tools, "docs/"), (stale_host, "docs/"), "stale", "tools", copied_before)
    for path in edited:
        copy = web.hosts[stale_host].get(path)  # None: a page added since
        if copy is not None and copy != restamped(web.hosts[tools][path]):
            web.truth.kinds[site_url(stale_host, path)] = "copy_edited"
    session_before = _before(added, "docs/", "docs/")
    web.copy((tools, "docs/"), (session, "docs/"), "session_links", "tools", session_before)
    victim = "docs/" + layout.copier_dir
    lacking = _lacking(web.hosts[tools], victim, 0.3, rng)
    missing = _without(lacking, victim, "")
    web.copy((tools, victim), (copier, ""), "copier", "copier", _before(added, victim, "", missing))
    links = [(_entry(web.hosts[tools], "docs/"), "The manual")]
    links.append((_entry(web.hosts[tools], victim), "Its directory"))
    for host in (tools, stale_host, session):
        web.front_page(host, f"{layout.stale} at {host}", links)


def _guides(web: HostsBuilder, layout: Layout, rng: Random) -> None:
    first, last = layout.guides[0], layout.guides[-1]
    guides, banner, books = layout.hosts.guides, layout.hosts.banner, layout.hosts.books
    for tree in layout.guides:
        web.place(guides, f"{tree}/", tree, read_tree(tree), symlinks(tree))
        _untranslated(web, guides, tree)
    aliases = symlinks(first)  # a page installed as a link holds its target's content
    for path, body in read_tree(first).items():
        recoded = hazards.code_edition(body, _CODE_WORDS)
        held = aliases.get(path, path)
        content = f"{first}-rpm:{held}" if recoded != body else f"{first}:{held}"
        web.put(
            guides,
            f"{first}-rpm/{path}",
            recoded,
            content,
            "edition_code" if recoded != body else "copy",
        )
    # a copy with pages of its own (the recoded ones: ``truth.OWN_PAGES``)
    web.replica("edition_code", (guides, f"{first}/"), (guides, f"{first}-rpm/"), "guides")
    web.copy(
        (guides, f"{last}/"),
        (guides, f"archive/{last}-old/"),
        "renamed_same_host",
        "guides-renamed",
    )
    web.front_page(guides, "Guides", _entries(web, guides))
    web.copy(
        (guides, ""),
        (banner, ""),
        "banner_footer",
        "guides",
        lambda path, body: hazards.with_banner_and_footer(body, banner),
    )
    lacking = _lacking(web.hosts[guides], f"{first}/", 0.2, rng)
    web.copy(
        (guides, f"{first}/"),
        (books, f"debian/{first}/"),
        "partial",
        "guides-partial",
        _without(lacking, f"{first}/", f"debian/{first}/"),
    )


def _untranslated(web: HostsBuilder, host: str, tree: str) -> None:
    """A partial translation's untranslated pages are its fallback edition's (placed before it
    on ``host``): copies of those. The translation is a replica of that edition that holds pages
    of its own under the same names, so no rule may prune it unfetched."""
    untranslated = borrowed(tree)
    fallback = TREES[tree].fallback
    for path, target in untranslated.items():
        content = web.content(host, f"{fallback}/{target}")
        web.truth.add(site_url(host, f"{tree}/{path}"), content, "copy_untranslated")
    if untranslated:
        web.replica(
            "partial_translation", (host, f"{fallback}/"), (host, f"{tree}/"), "translations"
        )


def _look_alikes(
    web: HostsBuilder,
    hosts: Hosts,
    notes: list[tuple[str, str, str]],
    each: int,
    chapters: list[str],
    news: list[str],
) -> None:
    """Two hosts whose ``pub/notes/`` list the same names over other pages; the archive also
    keeps a newsletter whose issues link the portal's news with tracking parameters."""
    for host, share in ((hosts.books, notes[:each]), (hosts.archive, notes[each : 2 * each])):
        for number, (content, _, body) in enumerate(share, start=1):
            web.put(host, f"pub/notes/note-{number:03d}.html", body, content, "original")
    books = web.hosts[hosts.books]
    guide = web.content(hosts.books, next(iter(books))).split(":")[0]
    links = [(_entry(books, f"debian/{guide}/"), "A guide (copy)"), ("pub/notes/", "Notes")]
    howtos = _entry(web.hosts[hosts.copier], "")
    front = hazards.plain_page(
        "Books",
        _link_items(links)
        + portal.tracking_links(chapters)
        + f'<p><a href="http://{hosts.copier}/{howtos}">Howtos</a></p>\n',
    )
    web.put(hosts.books, "", front, f"front:{hosts.books}", "front")
    web.front_page(
        hosts.archive, "Archive", [("pub/notes/", "Notes"), ("newsletter/index.html", "Newsletter")]
    )
    portal.newsletter(web, hosts.archive, "newsletter/", news)


def _manual(layout: Layout) -> tuple[str, dict[str, str], str, dict[str, str]]:
    english, french = layout.manual
    return english, read_tree(english), french, read_tree(french)


def _entries(web: HostsBuilder, host: str) -> list[tuple[str, str]]:
    """Each directory's index page on ``host`` (directories without one get an autoindex)."""
    pages = web.hosts[host]
    directories = sorted({directory_of(path) for path in pages if "/" in path and "?" not in path})
    return [(_entry(pages, top), top) for top in directories]


def _entry(pages: dict[str, str], directory: str) -> str:
    """The URL path that serves a directory's index page: its ``index.html`` when it has one
    (the test server maps no directory URL to it), else the directory (its autoindex)."""
    return directory + "index.html" if directory + "index.html" in pages else directory


def _link_items(links: list[tuple[str, str]]) -> str:
    return (
        "<ul>\n"
        + "".join(f'<li><a href="{path}">{label}</a></li>\n' for path, label in links)
        + "</ul>\n"
    )


def _lacking(
    pages: dict[str, str], directory: str, share: float, rng: Random, entry: str = "index.html"
) -> list[str]:
    """A share of the pages under ``directory`` (never its index page nor the ``entry`` its front
    page links), picked by ``rng``."""
    kept = {directory + "index.html", directory + entry}
    under = (path for path in pages if path.startswith(directory) and "?" not in path)
    candidates = sorted(path for path in under if path not in kept)
    return rng.sample(candidates, int(len(candidates) * share))


def _added(host: str, pages: dict[str, str], aliases: dict[str, str], count: int) -> set[str]:
    """``count`` pages of the manual under ``docs/`` that another of its pages links (no index
    page, no alias and no alias's target), seeded apart from the web's other draws, which stay
    as they were."""
    named = {f"docs/{path}" for path in aliases} | {f"docs/{path}" for path in aliases.values()}
    linked = {
        link.partition(f"{host}/")[2]
        for path, body in pages.items()
        if path.startswith("docs/")
        for link in page_links(site_url(host, path), body.encode("utf-8", "surrogateescape"))
        if link != site_url(host, path)
    }
    candidates = sorted(
        path
        for path in linked & pages.keys()
        if path.startswith("docs/") and not path.endswith("index.html") and path not in named
    )
    return set(Random("added since the copies").sample(candidates, min(count, len(candidates))))


def _before(
    added: set[str], source_dir: str, target_dir: str, transform: Transform | None = None
) -> Transform:
    """A copy of ``source_dir`` to ``target_dir`` made before ``added`` existed: it lacks them
    and its pages do not link them; then ``transform``, if any."""

    def copied(path: str, body: str) -> str | None:
        source = source_dir + path[len(target_dir) :]
        if source in added:
            return None
        body = hazards.unlinked(body, source, added)
        return transform(path, body) if transform else body

    return copied


def _without(lacking: list[str], source_dir: str, target_dir: str) -> Transform:
    absent = {target_dir + path[len(source_dir) :] for path in lacking}
    return lambda path, body: None if path in absent else body
