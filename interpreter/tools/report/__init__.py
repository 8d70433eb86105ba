"""`liturgy report`: balance reports (collect.py plays and watches the games, stats.py counts, plots.py draws,
page.py writes the HTML page, command.py is the subcommand)."""
