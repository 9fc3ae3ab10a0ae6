"""The Subscriptions page without JavaScript: reached from the dashboard's page,
subscribe with the schedule form (a refusal is a 400 beside its field, what was typed
kept), the list with the next send in the org's time zone, "send now" and its row in
the history, removing after a confirmation page."""

from __future__ import annotations

import re

from tests.analytics.subscriptions.conftest import Team, run_sends, subscribe
from tests.factories import login


def _page_url(team: Team, path: str = "") -> str:
    world = team.world
    return team.url(f"/subscriptions{path}").replace(
        f"/api/v1/orgs/{world.acme.org_id}", f"/o/{world.acme.slug}"
    )


def test_subscribe_send_now_and_remove_on_the_page(app, client, team: Team):
    world = team.world
    login(client, world.member.owner_email)
    dashboard = client.get(_page_url(team).rsplit("/subscriptions", 1)[0])
    assert _page_url(team).encode() in dashboard.data  # the "Subscribe…" link
    page = client.get(_page_url(team))
    assert page.status_code == 200 and b"Europe/Berlin" in page.data
    assert b'name="account_id"' not in page.data  # a member subscribes only themselves

    refused = client.post(_page_url(team), data={"frequency": "weekly", "hour": "30",
                                                  "pql_filter": "assignee = = x"})  # fmt: skip
    assert refused.status_code == 400
    html = refused.get_data(as_text=True)
    assert 'id="f-hour-error"' in html and 'value="assignee = = x"' in html

    done = client.post(_page_url(team), data={"frequency": "weekly", "weekday": "2",
                                               "hour": "9"})  # fmt: skip
    assert done.status_code == 303
    page = client.get(_page_url(team)).get_data(as_text=True)
    assert "weekly on Wednesday at 09:00" in page and "Next mail: " in page
    sub_id = page.split("/subscriptions/")[1].split("/")[0]
    # Subscribed, the form is the subscription to change (subscribing again replaced
    # the weekly mail with no word): its schedule filled in, and saying so after.
    assert "Change your subscription" in page and ">Save changes</button>" in page
    assert '<option value="2" selected>Wednesday</option>' in page and 'value="9"' in page
    again = client.post(_page_url(team), data={"frequency": "daily", "hour": "9"},
                        follow_redirects=True)  # fmt: skip
    assert "Your subscription changed: daily at 09:00 from now on." in again.get_data(as_text=True)
    assert client.post(_page_url(team), data={"frequency": "weekly", "weekday": "2",
                                               "hour": "9"}).status_code == 303  # fmt: skip

    assert client.post(_page_url(team, f"/{sub_id}/send")).status_code == 303
    run_sends(app)
    page = client.get(_page_url(team)).get_data(as_text=True)
    assert "(on request)" in page and ">sent<" in page.replace("</td>", "<")

    confirm = client.get(_page_url(team, f"/{sub_id}/remove"))
    assert confirm.status_code == 200 and b"data-confirm" in confirm.data
    assert client.post(_page_url(team, f"/{sub_id}/remove")).status_code == 303
    assert "No subscriptions yet." in client.get(_page_url(team)).get_data(as_text=True)


def test_the_owner_picks_the_recipient(client, team: Team):
    world = team.world
    login(client, world.acme.owner_email)
    page = client.get(_page_url(team)).get_data(as_text=True)
    assert 'name="account_id"' in page and "mia@acme.test" not in page  # names, not emails
    form = {"frequency": "daily", "hour": "7", "account_id": str(world.member.owner_id)}
    answer = client.post(_page_url(team), data=form)
    assert answer.status_code == 303
    assert "Everyone&#39;s subscriptions" in client.get(_page_url(team)).get_data(as_text=True)
    # Subscribed themselves, the editor's form holds their own schedule to change; it
    # offered the defaults, one press from replacing a daily mail with a weekly one.
    own = {"frequency": "daily", "hour": "17", "account_id": str(world.acme.owner_id)}
    assert client.post(_page_url(team), data=own).status_code == 303
    page = client.get(_page_url(team)).get_data(as_text=True)
    assert "Subscribe someone, or change your subscription" in page
    assert '<option value="daily" selected>' in page and 'value="17"' in page


def test_the_owner_changes_a_members_subscription_only_from_it(client, team: Team):
    """Picking someone already subscribed in a form that held another schedule
    replaced theirs, filter and all, unseen: it is refused, and their row's Edit
    loads their subscription into the form."""
    world = team.world
    member = str(world.member.owner_id)
    login(client, world.member.owner_email)
    theirs = {"frequency": "daily", "hour": "9", "pql_filter": "assignee = currentUser()"}
    assert client.post(_page_url(team), data=theirs).status_code == 303
    login(client, world.acme.owner_email)

    blank = {"frequency": "weekly", "weekday": "0", "hour": "8", "account_id": member}
    refused = client.post(_page_url(team), data=blank)
    html = refused.get_data(as_text=True)
    assert refused.status_code == 409
    assert "already gets this dashboard daily at 09:00 with a filter" in html
    assert 'id="f-account_id-error"' in html
    page = client.get(_page_url(team)).get_data(as_text=True)
    assert "daily at 09:00" in page and "assignee = currentUser()" in page  # kept

    edit = re.search(r'href="([^"]+recipient=[^"#]+)#subscribe"', page).group(1)
    form = client.get(edit.replace("&amp;", "&")).get_data(as_text=True)
    assert "Change " in form and "s subscription" in form
    assert f'name="loaded_for" value="{member}"' in form
    assert 'value="assignee = currentUser()"' in form and '<option value="daily" selected>' in form
    changed = {**theirs, "hour": "10", "account_id": member, "loaded_for": member}
    saved = client.post(_page_url(team), data=changed, follow_redirects=True)
    assert "The subscription changed: daily at 10:00 from now on." in saved.get_data(as_text=True)


def test_the_delete_says_whose_subscriptions_and_alerts_go_with_it(client, team: Team):
    """Deleting a published dashboard takes other members' subscriptions and alerts
    with it (a cascade): its confirmation counts them, the owner's apart."""
    world = team.world
    assert subscribe(client, team, world.member).status_code == 201
    assert subscribe(client, team, world.acme).status_code == 201
    widget = client.get(team.url(), headers=world.acme.headers).get_json()["widgets"][0]
    alert = {"dashboard_id": team.dashboard_id, "widget_id": widget["id"],
             "condition": "above", "threshold": 2}  # fmt: skip
    made = client.post(world.url("/alerts"), json=alert, headers=world.member.headers)
    assert made.status_code == 201, made.get_json()
    login(client, world.acme.owner_email)
    html = client.get(_page_url(team).rsplit("/subscriptions", 1)[0]).get_data(as_text=True)
    assert (
        "Delete “Team review”, its widgets, 1 alert (someone else&#39;s) and 2 email"
        " subscriptions (1 of them other people&#39;s)? This cannot be undone." in html
    )
