"""The JSON API's shared machinery: operations, problem+json errors, auth, OpenAPI.

Each capability package keeps its own API blueprint; this package gives them one way
to declare an operation, parse input, authenticate and fail.
"""

from workspace.api.auth import api_access, api_account
from workspace.api.operations import operation
from workspace.api.problems import ApiError

__all__ = ["ApiError", "api_access", "api_account", "operation"]
