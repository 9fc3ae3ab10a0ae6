"""Group sync (docs/sso.md#group-sync): IdP and directory groups mapped to project
roles. ``service`` holds the mappings and the reconcile; ``models`` the tables. The
sign-in methods (SSO, LDAP, and SCIM Groups later) feed the same reconcile."""
