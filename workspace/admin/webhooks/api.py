"""Webhook endpoints over the JSON API (docs/delivery.md#webhooks): org owners and
admins only (``webhook.manage``); another org's endpoint is a 404. The request
commits; the secret appears in the answers to create and rotate only."""

from __future__ import annotations

import uuid

from workspace.admin.webhooks.schemas import (
    DeliveryDetail,
    DeliveryOut,
    EndpointIn,
    EndpointOut,
    EndpointPatch,
    EndpointWithSecret,
)
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.delivery.webhooks import service
from workspace.security.permissions import Access

bp = api_blueprint("webhooks_api", __name__, "/api/v1/orgs/<uuid:org_id>")
TAG = "webhooks"
ACTION = "webhook.manage"
PATH = "/webhooks"
ONE = PATH + "/<uuid:endpoint_id>"
WRITE_ERRORS = (400, 401, 403, 404, 409, 422)


def _with_secret(created: service.Created) -> EndpointWithSecret:
    out = EndpointOut.model_validate(created.endpoint).model_dump()
    return EndpointWithSecret(**out, secret=created.secret)


@bp.get(PATH)
@operation("List the org's webhook endpoints", tag=TAG, response=list[EndpointOut],
           action=ACTION)  # fmt: skip
def list_endpoints(org_id: uuid.UUID, access: Access):
    return [EndpointOut.model_validate(e) for e in service.list_endpoints(access.org.id)]


@bp.post(PATH)
@operation(
    "Register an endpoint; the answer holds its signing secret, shown this once",
    tag=TAG,
    body=EndpointIn,
    response=EndpointWithSecret,
    status=201,
    errors=WRITE_ERRORS,
    action=ACTION,
)
def create_endpoint(org_id: uuid.UUID, access: Access, body: EndpointIn):
    """An http URL, a private address or an unknown kind is a 400 naming what to fix;
    past WEBHOOKS_MAX_PER_ORG endpoints a 409."""
    created = service.create(access.org.id, access.account.id, url=body.url, kinds=body.kinds,
                             description=body.description)  # fmt: skip
    return _with_secret(created)


@bp.get(ONE)
@operation("One endpoint", tag=TAG, response=EndpointOut, action=ACTION)
def read_endpoint(org_id: uuid.UUID, endpoint_id: uuid.UUID, access: Access):
    return EndpointOut.model_validate(service.get_endpoint(access.org.id, endpoint_id))


@bp.patch(ONE)
@operation(
    "Change an endpoint's URL, description or kinds, or disable or enable it",
    tag=TAG,
    body=EndpointPatch,
    response=EndpointOut,
    errors=WRITE_ERRORS,
    action=ACTION,
)
def update_endpoint(org_id: uuid.UUID, endpoint_id: uuid.UUID, access: Access,
                    body: EndpointPatch):  # fmt: skip
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    changes = body.model_dump(exclude_unset=True)
    return EndpointOut.model_validate(service.update(endpoint, access.account.id, changes))


@bp.delete(ONE)
@operation("Remove an endpoint and its delivery log", tag=TAG, status=204,
           errors=WRITE_ERRORS, action=ACTION)  # fmt: skip
def delete_endpoint(org_id: uuid.UUID, endpoint_id: uuid.UUID, access: Access):
    service.remove(service.get_endpoint(access.org.id, endpoint_id), access.account.id)


@bp.post(ONE + "/rotate")
@operation(
    "Rotate the signing secret: the new one is in the answer, shown this once; the old "
    "one signs beside it for WEBHOOKS_ROTATION_HOURS (24)",
    tag=TAG,
    response=EndpointWithSecret,
    errors=WRITE_ERRORS,
    action=ACTION,
)
def rotate_secret(org_id: uuid.UUID, endpoint_id: uuid.UUID, access: Access):
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    return _with_secret(service.rotate(endpoint, access.account.id))


@bp.post(ONE + "/test")
@operation("Send a webhook.test event to this endpoint (202: a job sends it)", tag=TAG,
           response=DeliveryOut, status=202, errors=WRITE_ERRORS, action=ACTION)  # fmt: skip
def send_test(org_id: uuid.UUID, endpoint_id: uuid.UUID, access: Access):
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    return DeliveryOut.model_validate(service.ping(endpoint, access.account.id))


@bp.get(ONE + "/deliveries")
@operation("The endpoint's delivery log, newest first (at most 50)", tag=TAG,
           response=list[DeliveryOut], action=ACTION)  # fmt: skip
def list_deliveries(org_id: uuid.UUID, endpoint_id: uuid.UUID, access: Access):
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    return [DeliveryOut.model_validate(d) for d in service.deliveries(endpoint)]


@bp.get(ONE + "/deliveries/<uuid:delivery_id>")
@operation("One delivery, with the body sent", tag=TAG, response=DeliveryDetail,
           action=ACTION)  # fmt: skip
def read_delivery(org_id: uuid.UUID, endpoint_id: uuid.UUID, delivery_id: uuid.UUID,
                  access: Access):  # fmt: skip
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    return DeliveryDetail.model_validate(service.get_delivery(endpoint, delivery_id))


@bp.post(ONE + "/deliveries/<uuid:delivery_id>/redeliver")
@operation("Send a delivery again, with the same webhook-id (202: a job sends it)",
           tag=TAG, response=DeliveryOut, status=202, errors=WRITE_ERRORS,
           action=ACTION)  # fmt: skip
def redeliver(org_id: uuid.UUID, endpoint_id: uuid.UUID, delivery_id: uuid.UUID,
              access: Access):  # fmt: skip
    endpoint = service.get_endpoint(access.org.id, endpoint_id)
    delivery = service.get_delivery(endpoint, delivery_id)
    return DeliveryOut.model_validate(service.redeliver(delivery, access.account.id))
