from workspace import create_app

app = create_app()
