"""py421 in the browser without a server: the tables a phone plays on its own.

The page's worker runs this package in Pyodide (CPython compiled to
WebAssembly), so the rules, the bots and the words of the log are py421's own
Python there too. Nothing here does I/O: the page keeps the saves.
"""
