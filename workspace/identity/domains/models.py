"""The domains table lives in :mod:`workspace.core.models.domains` so SCIM (which may
not import identity) reads the same verified list; re-exported here for the package."""

from workspace.core.models.domains import (
    DomainState,
    VerifiedDomain,
    verified_domain_names,
    verifying_org,
)

__all__ = ["DomainState", "VerifiedDomain", "verified_domain_names", "verifying_org"]
