"""`python -m cellaqm` is the `cellaqm` command."""

from cellaqm.cli import main

raise SystemExit(main())
