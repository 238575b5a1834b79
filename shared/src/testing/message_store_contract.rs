//! The `MessageStore` contract. Each scenario gets a fresh store from the factory.

use std::future::Future;

use crate::domain::{MessageId, PlayerId};
use crate::ports::message_store::{MessageKind, MessageStore, StoredMessage};

const T0: i64 = 4_102_444_800_000; // 2100: DynamoDB Local's TTL sweeper deletes items whose expireAt is past

fn message(recipient: &str, n: i64) -> StoredMessage {
    StoredMessage {
        message_id: MessageId::generate(T0 + n),
        recipient_id: PlayerId::parse(recipient).expect("valid test id"),
        sender_id: "alice".into(),
        kind: MessageKind::Chat,
        payload: format!(r#"{{"type":"message","n":{n}}}"#),
        created_at: T0 + n,
        expire_at_secs: T0 / 1000 + 86_400,
    }
}

pub async fn run_all<S, F, Fut>(make: F)
where
    S: MessageStore,
    F: Fn() -> Fut,
    Fut: Future<Output = S>,
{
    given_messages_for_several_recipients_then_each_reads_only_their_own_in_order(&make().await)
        .await;
    given_more_than_a_page_then_pages_continue_where_the_last_ended(&make().await).await;
    given_more_than_25_messages_then_all_are_written_and_deleted(&make().await).await;
    given_a_deleted_message_then_it_is_not_pending(&make().await).await;
    given_the_same_message_written_twice_then_it_is_stored_once(&make().await).await;
    given_nothing_to_write_or_delete_then_nothing_fails(&make().await).await;
}

async fn given_messages_for_several_recipients_then_each_reads_only_their_own_in_order(
    store: &impl MessageStore,
) {
    let written = vec![message("bob", 1), message("carol", 2), message("bob", 3)];
    store.put_all(&written).await.unwrap();
    let bob = store
        .pending(&PlayerId::parse("bob").unwrap(), None, 10)
        .await
        .unwrap();
    assert_eq!(bob.messages, vec![written[0].clone(), written[2].clone()]);
    assert_eq!(bob.next, None);
    let carol = store
        .pending(&PlayerId::parse("carol").unwrap(), None, 10)
        .await
        .unwrap();
    assert_eq!(carol.messages, vec![written[1].clone()]);
    let nobody = store
        .pending(&PlayerId::parse("dave").unwrap(), None, 10)
        .await
        .unwrap();
    assert!(nobody.messages.is_empty());
}

async fn given_more_than_a_page_then_pages_continue_where_the_last_ended(
    store: &impl MessageStore,
) {
    let written: Vec<_> = (0..5).map(|n| message("bob", n)).collect();
    store.put_all(&written).await.unwrap();
    let bob = PlayerId::parse("bob").unwrap();
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = store.pending(&bob, after.as_ref(), 2).await.unwrap();
        assert!(page.messages.len() <= 2);
        seen.extend(page.messages);
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, written);
}

async fn given_more_than_25_messages_then_all_are_written_and_deleted(store: &impl MessageStore) {
    let written: Vec<_> = (0..60).map(|n| message("bob", n)).collect();
    store.put_all(&written).await.unwrap();
    let bob = PlayerId::parse("bob").unwrap();
    assert_eq!(
        store.pending(&bob, None, 100).await.unwrap().messages.len(),
        60
    );
    let ids: Vec<_> = written.iter().map(|m| m.message_id.clone()).collect();
    store.delete_all(&ids).await.unwrap();
    assert!(
        store
            .pending(&bob, None, 100)
            .await
            .unwrap()
            .messages
            .is_empty()
    );
}

async fn given_a_deleted_message_then_it_is_not_pending(store: &impl MessageStore) {
    let written = vec![message("bob", 1), message("bob", 2)];
    store.put_all(&written).await.unwrap();
    store
        .delete_all(&[written[0].message_id.clone()])
        .await
        .unwrap();
    let bob = store
        .pending(&PlayerId::parse("bob").unwrap(), None, 10)
        .await
        .unwrap();
    assert_eq!(bob.messages, vec![written[1].clone()]);
    // Deleting what is already gone is not an error (a retried batch does that).
    store
        .delete_all(&[written[0].message_id.clone()])
        .await
        .unwrap();
}

async fn given_the_same_message_written_twice_then_it_is_stored_once(store: &impl MessageStore) {
    let m = message("bob", 1);
    store.put_all(std::slice::from_ref(&m)).await.unwrap();
    store.put_all(std::slice::from_ref(&m)).await.unwrap();
    let bob = store
        .pending(&PlayerId::parse("bob").unwrap(), None, 10)
        .await
        .unwrap();
    assert_eq!(bob.messages, vec![m]);
}

async fn given_nothing_to_write_or_delete_then_nothing_fails(store: &impl MessageStore) {
    store.put_all(&[]).await.unwrap();
    store.delete_all(&[]).await.unwrap();
}
