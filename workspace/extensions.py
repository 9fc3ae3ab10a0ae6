"""Flask extensions, created unbound so every package can import them."""

from flask_htmx import HTMX
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

from workspace.replica import RoutingSession

# Deterministic constraint names keep migrations identical on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


# Plain reads of some GETs may go to a standby (workspace/replica.py).
db = SQLAlchemy(model_class=Base, session_options={"class_": RoutingSession})


def built_here(
    obj: object, _name: str | None, _kind: str, _reflected: bool, _other: object
) -> bool:
    """Autogenerate's filter: leaves out what the models build on another database only
    (``ddl_if``, as the flow rollups' zero-row index, SQLite's alone since migration
    0037), which Alembic would otherwise ask to create everywhere."""
    condition = getattr(obj, "_ddl_if", None)
    return condition is None or condition.dialect in (None, db.engine.dialect.name)


migrate = Migrate(compare_type=True, render_as_batch=True, include_object=built_here)
csrf = CSRFProtect()
htmx = HTMX()
limiter = Limiter(key_func=get_remote_address, default_limits=[])
