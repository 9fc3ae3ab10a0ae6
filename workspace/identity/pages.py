"""The one ``identity_pages`` blueprint shared by the identity settings pages
(domains, single sign-on, group sync, LDAP), so the settings menu can link to
``identity_pages.<section>``.

Each subpackage's views module adds its routes to :data:`bp` when imported from its
``init_app``; :func:`workspace.identity.init_app` registers the blueprint once, after
every subpackage has had its turn.
"""

from flask import Blueprint

bp = Blueprint("identity_pages", __name__)
