"""Jobs: the durable record of work done outside a request (docs/jobs.md)

Revision ID: 0013_jobs
Revises: 0012_sso_extra_scopes
Create Date: 2026-11-27

Each job's state, attempts, last error, progress and timing; the files jobs make (a
dashboard's PDF, kept in the database so web and worker may run on different
machines); worker heartbeats; and one row per schedule period, whose primary key lets
only one of any number of schedulers start that period's job.
"""

from alembic import op
import sqlalchemy as sa

from workspace.types import UTCDateTime


# revision identifiers, used by Alembic.
revision = "0013_jobs"
down_revision = "0012_sso_extra_scopes"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "jobs",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("kind", sa.String(80), nullable=False),
        sa.Column("queue", sa.String(40), nullable=False),
        sa.Column("org_id", sa.Uuid(), sa.ForeignKey("orgs.id", ondelete="CASCADE")),
        sa.Column("account_id", sa.Uuid(), sa.ForeignKey("accounts.id", ondelete="SET NULL")),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text()),
        sa.Column("progress_text", sa.String(200)),
        sa.Column("progress_done", sa.Integer(), nullable=False),
        sa.Column("progress_total", sa.Integer(), nullable=False),
        sa.Column("worker_id", sa.String(120)),
        sa.Column("result", sa.JSON()),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("started_at", UTCDateTime()),
        sa.Column("finished_at", UTCDateTime()),
    )
    op.create_index("ix_jobs_state_created", "jobs", ["state", "created_at"])
    op.create_index("ix_jobs_org_created", "jobs", ["org_id", "created_at"])
    op.create_table(
        "job_files",
        sa.Column(
            "job_id", sa.Uuid(), sa.ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("filename", sa.String(200), nullable=False),
        sa.Column("media_type", sa.String(100), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_job_files_expires_at", "job_files", ["expires_at"])
    op.create_table(
        "job_workers",
        sa.Column("id", sa.String(120), primary_key=True),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("queues", sa.String(200), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("seen_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_job_workers_seen_at", "job_workers", ["seen_at"])
    op.create_table(
        "job_schedule_runs",
        sa.Column("schedule", sa.String(80), primary_key=True),
        sa.Column("period_start", UTCDateTime(), primary_key=True),
        sa.Column("job_id", sa.Uuid(), sa.ForeignKey("jobs.id", ondelete="SET NULL")),
        sa.Column("claimed_by", sa.String(120), nullable=False),
        sa.Column("claimed_at", UTCDateTime(), nullable=False),
    )


def downgrade():
    op.drop_table("job_schedule_runs")
    op.drop_table("job_workers")
    op.drop_index("ix_job_files_expires_at", "job_files")
    op.drop_table("job_files")
    op.drop_index("ix_jobs_org_created", "jobs")
    op.drop_index("ix_jobs_state_created", "jobs")
    op.drop_table("jobs")
