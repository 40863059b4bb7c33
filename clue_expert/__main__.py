from .people.cli import main

raise SystemExit(main())
