"""The workspace domain: orgs, members, projects, workflow, tasks and activity.
Models and services only; the tracker and the other capabilities serve them."""
