"""``POST /auth/session`` and ``DELETE /auth/session``: the web page signs in and out.

The page never keeps the API key: it sends it here once and gets an HttpOnly cookie that the
browser sends with each of the page's requests (:mod:`notecite.api.page_session`). API clients
go on sending ``Authorization: Bearer <key>``.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from pydantic import SecretStr

from notecite.api.page_session import COOKIE, MAX_AGE_S, issue
from notecite.api.schemas import PageSignIn
from notecite.api.security import tenant_for_key
from notecite.api.services import TenantsDep
from notecite.config import DEFAULT_TENANT

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post("/session", status_code=status.HTTP_204_NO_CONTENT)
def sign_in(body: PageSignIn, request: Request, tenants: TenantsDep) -> Response:
    """Check the key and set the page's session cookie (401 for a wrong key; a server
    without keys needs no sign-in and sets none)."""
    keys = tenants.settings.server.keys_by_tenant()
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    if not keys:
        return response
    key = body.key.strip()
    tenant = tenant_for_key(f"Bearer {key}", keys, DEFAULT_TENANT)
    response.set_cookie(
        COOKIE,
        issue(tenant, SecretStr(key)),
        max_age=MAX_AGE_S,
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


@router.delete("/session", status_code=status.HTTP_204_NO_CONTENT)
def sign_out(request: Request) -> Response:
    """Clear the page's session cookie."""
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(
        COOKIE, path="/", secure=request.url.scheme == "https", httponly=True, samesite="strict"
    )
    return response
