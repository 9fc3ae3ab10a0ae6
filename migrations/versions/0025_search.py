"""Full-text search over tasks and comments (issue 29, docs/search.md)

The search index is kept by triggers, in the transaction of the write that changes a
task or a comment, so no service has to remember it. PostgreSQL: ``task_search`` holds
a weighted ``tsvector`` (GIN) and the title for ``pg_trgm`` (GIN). SQLite: the
``task_search`` rows are the external content of the FTS5 table ``task_search_fts``.
Neither is a model: the FTS5 table and its shadow tables cannot be one, so the models'
comparison (tests/test_migrations.py) leaves out ``workspace.core.search_index.TABLES``.

Revision ID: 0025_search
Revises: 0024_widget_time
Create Date: 2026-11-27
"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "0025_search"
down_revision = "0024_widget_time"
branch_labels = None
depends_on = None

#: The text search configuration (docs/search.md#language); the service uses the same.
CONFIG = "english"

# -- PostgreSQL ------------------------------------------------------------------------

# Hyphens become spaces first: the default parser reads "WEB-12" as "web" and the
# signed number "-12", which the query "web-12" (words "web", "12") would miss.
PG_DOCUMENT = f"""
CREATE FUNCTION task_search_document(k text, title text, body text, comments text)
RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
  SELECT setweight(to_tsvector('{CONFIG}', translate(coalesce(k, ''), '-', ' ')), 'A')
      || setweight(to_tsvector('{CONFIG}', translate(coalesce(title, ''), '-', ' ')), 'A')
      || setweight(to_tsvector('{CONFIG}', translate(coalesce(body, ''), '-', ' ')), 'B')
      || setweight(to_tsvector('{CONFIG}', translate(coalesce(comments, ''), '-', ' ')), 'C')
$$"""

PG_COMMENTS = (
    "coalesce((SELECT string_agg(c.body, E'\\n' ORDER BY c.created_at) FROM comments c "
    "WHERE c.task_id = {t} AND c.deleted_at IS NULL), '')"
)

PG_TASK_FUNCTIONS = {
    "task_search_on_task_insert": """
  INSERT INTO task_search (task_id, org_id, key, title, comments, document)
  SELECT NEW.id, NEW.org_id, p.identifier || '-' || NEW.sequence, NEW.title, '',
         task_search_document(p.identifier || '-' || NEW.sequence, NEW.title,
                              NEW.description, '')
    FROM projects p WHERE p.id = NEW.project_id;""",
    "task_search_on_task_update": """
  UPDATE task_search s
     SET org_id = NEW.org_id, key = p.identifier || '-' || NEW.sequence, title = NEW.title,
         document = task_search_document(p.identifier || '-' || NEW.sequence, NEW.title,
                                         NEW.description, s.comments)
    FROM projects p WHERE p.id = NEW.project_id AND s.task_id = NEW.id;""",
}

PG_COMMENT_FUNCTION = f"""
CREATE FUNCTION task_search_on_comment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN changed := ARRAY[NEW.task_id];
  ELSIF TG_OP = 'DELETE' THEN changed := ARRAY[OLD.task_id];
  ELSE changed := ARRAY[OLD.task_id, NEW.task_id];
  END IF;
  UPDATE task_search s
     SET comments = {PG_COMMENTS.format(t="t.id")},
         document = task_search_document(s.key, t.title, t.description,
                                         {PG_COMMENTS.format(t="t.id")})
    FROM tasks t WHERE t.id = s.task_id AND s.task_id = ANY(changed);
  RETURN NULL;
END $$"""

PG_BACKFILL = f"""
INSERT INTO task_search (task_id, org_id, key, title, comments, document)
SELECT t.id, t.org_id, p.identifier || '-' || t.sequence, t.title, c.text,
       task_search_document(p.identifier || '-' || t.sequence, t.title, t.description, c.text)
  FROM tasks t JOIN projects p ON p.id = t.project_id
  CROSS JOIN LATERAL (SELECT {PG_COMMENTS.format(t="t.id")} AS text) c"""


def _upgrade_postgresql() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    op.execute(
        "CREATE TABLE task_search ("
        " task_id uuid PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,"
        " org_id uuid NOT NULL,"
        " key text NOT NULL,"
        " title text NOT NULL,"
        " comments text NOT NULL DEFAULT '',"
        " document tsvector NOT NULL)"
    )
    op.execute(PG_DOCUMENT)
    for name, body in PG_TASK_FUNCTIONS.items():
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body}"
            " RETURN NULL; END $$"
        )
    op.execute(
        "CREATE TRIGGER task_search_on_task_insert AFTER INSERT ON tasks FOR EACH ROW "
        "EXECUTE FUNCTION task_search_on_task_insert()"
    )
    op.execute(
        "CREATE TRIGGER task_search_on_task_update AFTER UPDATE OF title, description, "
        "sequence, project_id, org_id ON tasks FOR EACH ROW WHEN ("
        "OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM "
        "NEW.description OR OLD.sequence IS DISTINCT FROM NEW.sequence OR OLD.project_id "
        "IS DISTINCT FROM NEW.project_id OR OLD.org_id IS DISTINCT FROM NEW.org_id) "
        "EXECUTE FUNCTION task_search_on_task_update()"
    )
    op.execute(PG_COMMENT_FUNCTION)
    op.execute(
        "CREATE TRIGGER task_search_on_comment AFTER INSERT OR DELETE OR UPDATE OF body, "
        "deleted_at, task_id ON comments FOR EACH ROW EXECUTE FUNCTION task_search_on_comment()"
    )
    op.execute(PG_BACKFILL)
    # Built after the backfill: one sort instead of a row-by-row index insert. The org
    # leads both (btree_gin), so one org's matches are found in the index alone, not
    # among every org's.
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    op.execute("CREATE INDEX ix_task_search_document ON task_search USING gin (org_id, document)")
    op.execute(
        "CREATE INDEX ix_task_search_title_trgm ON task_search "
        "USING gin (org_id, title gin_trgm_ops)"
    )


def _downgrade_postgresql() -> None:
    op.execute("DROP TRIGGER IF EXISTS task_search_on_comment ON comments")
    op.execute("DROP FUNCTION IF EXISTS task_search_on_comment()")
    for name in PG_TASK_FUNCTIONS:
        op.execute(f"DROP TRIGGER IF EXISTS {name} ON tasks")
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.execute("DROP TABLE IF EXISTS task_search")
    op.execute("DROP FUNCTION IF EXISTS task_search_document(text, text, text, text)")
    # pg_trgm and btree_gin stay: another part of the database may have come to use them.


# -- SQLite ----------------------------------------------------------------------------

SQLITE_COMMENTS = (
    "coalesce((SELECT group_concat(body, char(10)) FROM (SELECT c.body FROM comments c "
    "WHERE c.task_id = {t} AND c.deleted_at IS NULL ORDER BY c.created_at)), '')"
)
SQLITE_KEY = (
    "(SELECT p.identifier FROM projects p WHERE p.id = NEW.project_id) || '-' || NEW.sequence"
)
FTS_COLUMNS = "key, title, body, comments"

SQLITE_STATEMENTS = [
    # id is the FTS5 rowid: an INTEGER PRIMARY KEY keeps it stable through VACUUM.
    "CREATE TABLE task_search ("
    " id INTEGER PRIMARY KEY,"
    " task_id CHAR(32) NOT NULL UNIQUE REFERENCES tasks(id) ON DELETE CASCADE,"
    " org_id CHAR(32) NOT NULL,"
    " key TEXT NOT NULL,"
    " title TEXT NOT NULL,"
    " body TEXT NOT NULL DEFAULT '',"
    " comments TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX ix_task_search_org ON task_search (org_id)",
    f"CREATE VIRTUAL TABLE task_search_fts USING fts5({FTS_COLUMNS}, content='task_search', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    # The FTS5 index follows its content table (the documented external-content triggers).
    "CREATE TRIGGER task_search_fts_insert AFTER INSERT ON task_search BEGIN "
    f"INSERT INTO task_search_fts (rowid, {FTS_COLUMNS}) "
    "VALUES (NEW.id, NEW.key, NEW.title, NEW.body, NEW.comments); END",
    "CREATE TRIGGER task_search_fts_delete AFTER DELETE ON task_search BEGIN "
    f"INSERT INTO task_search_fts (task_search_fts, rowid, {FTS_COLUMNS}) "
    "VALUES ('delete', OLD.id, OLD.key, OLD.title, OLD.body, OLD.comments); END",
    "CREATE TRIGGER task_search_fts_update AFTER UPDATE ON task_search BEGIN "
    f"INSERT INTO task_search_fts (task_search_fts, rowid, {FTS_COLUMNS}) "
    "VALUES ('delete', OLD.id, OLD.key, OLD.title, OLD.body, OLD.comments); "
    f"INSERT INTO task_search_fts (rowid, {FTS_COLUMNS}) "
    "VALUES (NEW.id, NEW.key, NEW.title, NEW.body, NEW.comments); END",
    # The tasks and comments keep their rows current.
    "CREATE TRIGGER task_search_on_task_insert AFTER INSERT ON tasks BEGIN "
    "INSERT INTO task_search (task_id, org_id, key, title, body) "
    f"VALUES (NEW.id, NEW.org_id, {SQLITE_KEY}, NEW.title, coalesce(NEW.description, '')); END",
    "CREATE TRIGGER task_search_on_task_update AFTER UPDATE OF title, description, sequence, "
    "project_id, org_id ON tasks WHEN OLD.title IS NOT NEW.title OR OLD.description IS NOT "
    "NEW.description OR OLD.sequence IS NOT NEW.sequence OR OLD.project_id IS NOT "
    "NEW.project_id OR OLD.org_id IS NOT NEW.org_id BEGIN "
    f"UPDATE task_search SET org_id = NEW.org_id, key = {SQLITE_KEY}, title = NEW.title, "
    "body = coalesce(NEW.description, '') WHERE task_id = NEW.id; END",
    "CREATE TRIGGER task_search_on_task_delete AFTER DELETE ON tasks BEGIN "
    "DELETE FROM task_search WHERE task_id = OLD.id; END",
    "CREATE TRIGGER task_search_on_comment_insert AFTER INSERT ON comments BEGIN "
    f"UPDATE task_search SET comments = {SQLITE_COMMENTS.format(t='NEW.task_id')} "
    "WHERE task_id = NEW.task_id; END",
    "CREATE TRIGGER task_search_on_comment_update AFTER UPDATE OF body, deleted_at, task_id "
    "ON comments BEGIN "
    f"UPDATE task_search SET comments = {SQLITE_COMMENTS.format(t='OLD.task_id')} "
    "WHERE task_id = OLD.task_id; "
    f"UPDATE task_search SET comments = {SQLITE_COMMENTS.format(t='NEW.task_id')} "
    "WHERE task_id = NEW.task_id; END",
    "CREATE TRIGGER task_search_on_comment_delete AFTER DELETE ON comments BEGIN "
    f"UPDATE task_search SET comments = {SQLITE_COMMENTS.format(t='OLD.task_id')} "
    "WHERE task_id = OLD.task_id; END",
]

SQLITE_BACKFILL = (
    "INSERT INTO task_search (task_id, org_id, key, title, body, comments) "
    "SELECT t.id, t.org_id, p.identifier || '-' || t.sequence, t.title, "
    f"coalesce(t.description, ''), {SQLITE_COMMENTS.format(t='t.id')} "
    "FROM tasks t JOIN projects p ON p.id = t.project_id"
)

SQLITE_TRIGGERS = (
    "task_search_on_comment_delete",
    "task_search_on_comment_update",
    "task_search_on_comment_insert",
    "task_search_on_task_delete",
    "task_search_on_task_update",
    "task_search_on_task_insert",
    "task_search_fts_update",
    "task_search_fts_delete",
    "task_search_fts_insert",
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgresql()
        return
    for statement in SQLITE_STATEMENTS:
        op.execute(statement)
    op.execute(SQLITE_BACKFILL)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _downgrade_postgresql()
        return
    for name in SQLITE_TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.execute("DROP TABLE IF EXISTS task_search_fts")
    op.execute("DROP TABLE IF EXISTS task_search")
