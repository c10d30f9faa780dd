from stagelint.cli import main

raise SystemExit(main())
