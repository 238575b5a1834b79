//! The party operations (shared/src/party/mod.rs), on tables of their own
//! so that a sweep finds only the party's members: a party of three (alice, bob, carol;
//! dave and erin on their own). Every inbox has had a message first, so the rows show the
//! usual append, not an inbox's first (its epoch item).

use std::sync::Arc;

use aws_adapters::dynamodb::DynamoMessageStore;
use aws_lambda_events::apigw::ApiGatewayProxyResponse;
use connect::ConnectHandler;
use contracts::events::{reply_frame, route_event};

use edge::websocket::{RouteEvent, RouteHandler};
use party::PartyHandler;
use resume::ResumeHandler;
use send_message::SendMessageHandler;
use serde_json::{Value, json};
use session_placement_request::SessionPlacementRequestHandler;
use shared::config::Config;
use shared::domain::MessageId;
use shared::requests::Route;
use shared::wiring::Wiring;

use crate::{Bench, client_event, first_message, now};

type Error = lambda_runtime::Error;

/// The party tables, stores and handlers.
struct Party {
    config: Arc<Config>,
    messages: Arc<DynamoMessageStore>,
    /// What the handlers measured here are built from (each by its function's `wire`).
    wiring: Wiring,
    connect: ConnectHandler,
    party: PartyHandler,
    send: SendMessageHandler,
    resume: ResumeHandler,
    request: SessionPlacementRequestHandler,
}

/// `route` with `body` from `player` on their socket `c-<player>`.
fn ask(player: &str, route: Route, body_json: Value) -> RouteEvent {
    client_event(route, player, &format!("c-{player}"), body_json)
}

impl Party {
    async fn create(client: &aws_sdk_dynamodb::Client, bench: &Bench) -> Result<Self, Error> {
        let mut config = crate::fresh_tables(client, "party").await?;
        // Nobody here times out but the one the sweep rows disconnect.
        config.heartbeat_timeout = std::time::Duration::from_secs(7_200);
        let config = Arc::new(config);
        let messages = Arc::new(DynamoMessageStore::new(
            client.clone(),
            config.messages_table.clone(),
        ));
        let w = bench.wiring(client, config.clone());
        Ok(Self {
            connect: connect::wire(&w),
            party: party::wire(&w),
            send: send_message::wire(&w),
            resume: resume::wire(&w),
            request: session_placement_request::wire(&w),
            config,
            messages,
            wiring: w,
        })
    }

    /// Connects `name` on `c-<name>` and gives their inbox a first message (set-up).
    async fn arrive(&self, name: &str) -> Result<(), Error> {
        self.connect
            .handle(route_event(
                "$connect",
                name,
                &format!("c-{name}"),
                now(),
                None,
            ))
            .await?;
        first_message(
            self.messages.as_ref(),
            MessageId::generate(now()),
            name,
            json!({"type": "message"}),
        )
        .await?;
        Ok(())
    }

    /// `route` as `player` through the party function, measured.
    async fn party_route(
        &self,
        bench: &mut Bench,
        player: &str,
        route: Route,
        body_json: Value,
    ) -> Result<ApiGatewayProxyResponse, Error> {
        bench
            .route(self.party.handle(ask(player, route, body_json)))
            .await
    }
}

/// Appends the party rows to `bench`.
pub async fn rows(client: &aws_sdk_dynamodb::Client, bench: &mut Bench) -> Result<(), Error> {
    let world = Party::create(client, bench).await?;
    for name in ["alice", "bob", "carol", "dave", "erin"] {
        world.arrive(name).await?;
    }
    bench.reset();
    let party_id = membership(&world, bench).await?;
    playing(&world, bench, &party_id).await?;
    leaving(&world, bench).await?;
    sweeps(&world, bench, &party_id).await
}

/// alice creates a party; bob and carol join it, dave declines, erin was not asked.
/// Returns the party's id.
async fn membership(world: &Party, bench: &mut Bench) -> Result<String, Error> {
    let created = reply_frame(
        &world
            .party_route(bench, "alice", Route::CreateParty, json!({}))
            .await?,
    );
    let party_id = created["party"]["partyId"]
        .as_str()
        .ok_or_else(|| format!("no party in {created}"))?
        .to_owned();
    bench.row(
        "party_create",
        Route::CreateParty.as_str(),
        "1 query + 1 transaction (party, link, 1 push)",
    );
    world
        .party_route(
            bench,
            "alice",
            Route::InviteToParty,
            json!({"playerId": "bob"}),
        )
        .await?;
    bench.row(
        "party_invite",
        Route::InviteToParty.as_str(),
        "1 rate-limit write (2 in a new minute) ‖ 1 read (the caller's party) ‖ 1 BatchGetItem (Friends: a block) + 1 read (the party) + 1 query + 1 transaction (party checked, invitation, invitee checked, 1 push)",
    );
    let join = json!({"partyId": party_id});
    world
        .party_route(bench, "bob", Route::JoinParty, join.clone())
        .await?;
    bench.row(
        "party_join_2nd",
        "joinParty, the 2nd member",
        "1 read (party + invitation) + N queries + 1 transaction (party, invitation, link, N pushes)",
    );
    for invitee in ["carol", "dave"] {
        world
            .party
            .handle(ask(
                "alice",
                Route::InviteToParty,
                json!({"playerId": invitee}),
            ))
            .await?;
    }
    bench.reset();
    world
        .party_route(bench, "carol", Route::JoinParty, join.clone())
        .await?;
    bench.row(
        "party_join_3rd",
        "joinParty, the 3rd member",
        "1 read (party + invitation) + N queries + 1 transaction (party, invitation, link, N pushes)",
    );
    world
        .party_route(bench, "dave", Route::DeclinePartyInvite, join.clone())
        .await?;
    bench.row(
        "party_decline",
        Route::DeclinePartyInvite.as_str(),
        "1 read (party + invitation) + 1 query + 1 transaction (invitation, 1 push to the inviter)",
    );
    world
        .party_route(bench, "erin", Route::JoinParty, join)
        .await?;
    bench.row(
        "party_join_uninvited",
        "joinParty without an invitation (not_found)",
        "1 read, nothing written",
    );
    Ok(party_id)
}

/// Party chat, latencies, the party's placement and a member's resume (the party of 3).
async fn playing(world: &Party, bench: &mut Bench, party_id: &str) -> Result<(), Error> {
    bench
        .route(world.send.handle(ask(
            "bob",
            Route::SendMessage,
            json!({"partyId": party_id, "message": {"text": "gg"}}),
        )))
        .await?;
    bench.row(
        "send_message_party_3",
        "sendMessage to a party of 3 (2 recipients)",
        "1 read (the party) + 1 rate-limit write + N-1 queries + N-1 conditional writes",
    );
    bench
        .route(world.request.handle(ask(
            "bob",
            Route::SetPlacementLatencies,
            json!({"latencies": {"eu-west-1": 30}}),
        )))
        .await?;
    bench.row(
        "set_placement_latencies",
        Route::SetPlacementLatencies.as_str(),
        "1 write",
    );
    bench
        .route(
            world
                .request
                .handle(ask("bob", Route::SessionPlacementRequest, json!({}))),
        )
        .await?;
    bench.row(
        "session_placement_party_member",
        "sessionPlacementRequest by a member (forbidden)",
        "1 rate-limit write (2 in a new minute) + 1 failed write (its old item names the party) + 1 read (the party)",
    );
    bench
        .route(
            world
                .request
                .handle(ask("alice", Route::SessionPlacementRequest, json!({}))),
        )
        .await?;
    bench.row(
        "session_placement_party_3",
        "sessionPlacementRequest by the leader of 3",
        "1 rate-limit write (2 in a new minute) + 1 failed write (names the party) + 1 read (the party) + 1 BatchGetItem (latencies) + 1 transaction (party checked, N pending) + 1 write (the record) + 1 GameLift call",
    );
    bench
        .route(world.resume.handle(ask("carol", Route::Resume, json!({}))))
        .await?;
    bench.row(
        "resume_party_member",
        "resume, a party member online",
        "resume's (1 read + 1 query + 1 hand-over transaction) + 1 read (the party)",
    );
    Ok(())
}

/// alice hands the lead to bob, who kicks carol and then leaves (alice leads again).
async fn leaving(world: &Party, bench: &mut Bench) -> Result<(), Error> {
    world
        .party_route(
            bench,
            "alice",
            Route::PromotePartyLeader,
            json!({"playerId": "bob"}),
        )
        .await?;
    bench.row(
        "party_promote_3",
        "promotePartyLeader, party of 3",
        "1 read (the caller's party) + 1 read (the party) + N queries + 1 transaction (party, N pushes)",
    );
    world
        .party_route(
            bench,
            "bob",
            Route::KickFromParty,
            json!({"playerId": "carol"}),
        )
        .await?;
    bench.row(
        "party_kick_3",
        "kickFromParty, party of 3",
        "1 read + 1 read + N queries + 1 transaction (party, link removed, N pushes)",
    );
    world
        .party_route(bench, "bob", Route::LeaveParty, json!({}))
        .await?;
    bench.row(
        "party_leave_leader",
        "leaveParty, the leader (hand-over)",
        "1 read + 1 read + N queries + 1 transaction (party, link removed, N pushes)",
    );
    Ok(())
}

/// The sweeper: alice (leading alice and erin) drops and is taken offline, her party
/// told; then she stays away too long and is removed. Nobody else times out (a two-hour
/// heartbeat timeout on these tables).
async fn sweeps(world: &Party, bench: &mut Bench, party_id: &str) -> Result<(), Error> {
    world
        .party
        .handle(ask(
            "alice",
            Route::InviteToParty,
            json!({"playerId": "erin"}),
        ))
        .await?;
    world
        .party
        .handle(ask("erin", Route::JoinParty, json!({"partyId": party_id})))
        .await?;
    disconnect::wire(&world.wiring)
        .handle(route_event("$disconnect", "alice", "c-alice", now(), None))
        .await?;
    let sweeper = presence_timeout::wire(&world.wiring);
    let past_grace = now() + i64::try_from(world.config.reconnect_grace.as_millis())? + 1;
    let offline = i64::try_from(world.config.parties.offline.as_millis())?;
    bench.reset();
    bench
        .invoke(async { Ok::<_, Error>(sweeper.sweep_once(past_grace).await) })
        .await?;
    bench.row(
        "sweep_party_offline",
        "sweep: a member of a party of 2 taken offline",
        "per shard 1 query (players) + 1 query (parties); 1 write (offline) + 1 read (the party) + N queries + 1 transaction (presence, N pushes)",
    );
    bench
        .invoke(async { Ok::<_, Error>(sweeper.sweep_once(past_grace + offline).await) })
        .await?;
    bench.row(
        "sweep_party_removed",
        "sweep: that member removed after PARTY_OFFLINE_SECONDS",
        "per shard 1 query (players) + 1 query (parties); 1 read (the party) + N queries + 1 transaction (party, link removed, N pushes) + 1 read (nobody else due)",
    );
    Ok(())
}
