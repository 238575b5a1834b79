//! The real `aws-sdk-apigatewaymanagement` adapter against the local stack's
//! `@connections` API: what the deployed functions do, over HTTP.

use aws_adapters::apigateway::ApiGatewayManagementGateway;
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_sdk_apigatewaymanagement::config::{Credentials, SharedCredentialsProvider};
use serde_json::json;
use shared::domain::{ConnectionId, PresenceStatus};
use shared::ports::{ConnectionGateway, ConnectionProbe, GatewayError};
use tests::stack::TestStack;

fn gateway() -> ApiGatewayManagementGateway {
    let sdk_config = SdkConfig::builder()
        .region(Region::new("us-east-1"))
        .credentials_provider(SharedCredentialsProvider::new(Credentials::new(
            "local", "local", None, None, "test",
        )))
        .behavior_version(BehaviorVersion::latest())
        .build();
    ApiGatewayManagementGateway::new(sdk_config)
}

async fn connection_of(stack: &TestStack, player: &str) -> ConnectionId {
    ConnectionId::parse(stack.connection_id(player).await).expect("a valid connection id")
}

/// An id shaped like a real one that was never connected.
fn unknown() -> ConnectionId {
    ConnectionId::parse("L0SM9cOFvHcCIhw=").unwrap()
}

#[tokio::test]
async fn given_a_connected_client_when_posted_to_then_it_receives_the_frame() {
    // A raw post bypasses the inbox, so the frame has no `seq`: not a protocol push.
    let stack = TestStack::start().await.without_schema_check();
    let mut alice = stack.connect("alice").await;
    let id = connection_of(&stack, "alice").await;
    let message = json!({"type": "message", "messageId": "m1", "from": "system", "message": "hi", "sentAt": 1});

    gateway()
        .post(
            &stack.management_endpoint(),
            &id,
            message.to_string().as_bytes(),
        )
        .await
        .expect("post succeeds");

    assert_eq!(alice.next_frame().await, message);
    stack.shutdown().await;
}

#[tokio::test]
async fn given_many_posts_at_once_to_one_client_when_written_then_each_succeeds_once_its_frame_arrives()
 {
    // Given: a connected client, and frames posted to it all at once (the connection
    // writes what is queued by then in one go, and tells each post when its frame is out).
    let stack = TestStack::start().await.without_schema_check();
    let mut alice = stack.connect("alice").await;
    let id = connection_of(&stack, "alice").await;
    let (gateway, endpoint) = (gateway(), stack.management_endpoint());
    let frames: Vec<String> = (0..100)
        .map(|i| json!({"type": "message", "messageId": format!("m{i}")}).to_string())
        .collect();

    // When: they are posted concurrently.
    let posts = frames
        .iter()
        .map(|frame| gateway.post(&endpoint, &id, frame.as_bytes()));
    let outcomes = futures_util::future::join_all(posts).await;

    // Then: every post succeeded, and the client received every frame, once.
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let mut received = Vec::new();
    for _ in &frames {
        received.push(alice.next_frame().await.to_string());
    }
    received.sort();
    let mut expected = frames.clone();
    expected.sort();
    assert_eq!(received, expected);
    alice
        .expect_no_frame(std::time::Duration::from_millis(100))
        .await;
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_connected_client_when_described_then_connected_at_and_source_ip_are_reported() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;
    let id = connection_of(&stack, "alice").await;
    let before = shared::ports::SystemClock;
    let now = shared::ports::Clock::now_millis(&before);
    alice
        .send_json(json!({"route": "heartbeat", "requestId": "hb"}))
        .await;
    alice.next_frame().await;

    let info = gateway()
        .get(&stack.management_endpoint(), &id)
        .await
        .expect("get succeeds");

    assert_eq!(info.source_ip.as_deref(), Some("127.0.0.1"));
    let connected_at = info.connected_at_millis.expect("connectedAt");
    assert!(
        (now - 10_000..=now).contains(&connected_at),
        "{info:?} vs {now}"
    );
    let last_active = info.last_active_at_millis.expect("lastActiveAt");
    assert!(last_active >= connected_at, "{info:?}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_connected_client_when_deleted_then_its_socket_closes_and_it_disconnects() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;
    let id = connection_of(&stack, "alice").await;

    gateway()
        .delete(&stack.management_endpoint(), &id)
        .await
        .expect("delete succeeds");

    alice.expect_close().await;
    stack
        .wait_for_status("alice", PresenceStatus::Disconnected)
        .await;
    assert!(matches!(
        gateway()
            .post(&stack.management_endpoint(), &id, b"late")
            .await,
        Err(GatewayError::Gone)
    ));
    stack.shutdown().await;
}

#[tokio::test]
async fn given_an_unknown_connection_when_posted_described_or_deleted_then_gone() {
    let stack = TestStack::start().await;
    let gateway = gateway();
    let endpoint = stack.management_endpoint();

    let post = gateway.post(&endpoint, &unknown(), b"hello").await;
    let get = gateway.get(&endpoint, &unknown()).await;
    let delete = gateway.delete(&endpoint, &unknown()).await;

    assert!(matches!(post, Err(GatewayError::Gone)), "{post:?}");
    assert!(matches!(get, Err(GatewayError::Gone)), "{get:?}");
    assert!(matches!(delete, Err(GatewayError::Gone)), "{delete:?}");
    stack.shutdown().await;
}

#[tokio::test]
async fn given_a_payload_over_128_kib_when_posted_then_payload_too_large() {
    let stack = TestStack::start().await;
    let mut alice = stack.connect("alice").await;
    let id = connection_of(&stack, "alice").await;

    let result = gateway()
        .post(&stack.management_endpoint(), &id, &vec![b'x'; 200 * 1024])
        .await;

    assert!(
        matches!(result, Err(GatewayError::PayloadTooLarge)),
        "{result:?}"
    );
    alice
        .expect_no_frame(std::time::Duration::from_millis(200))
        .await;
    stack.shutdown().await;
}
