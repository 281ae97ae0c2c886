"""Online tables: a FastAPI server, its storage and a static browser front-end."""
