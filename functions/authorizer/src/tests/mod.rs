//! Handler tests: every event goes through `Authorizer::handle` or `authorize`, with keys
//! generated at test time and tokens signed by jsonwebtoken.

use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::apigw::{
    ApiGatewayCustomAuthorizerRequestTypeRequest, ApiGatewayCustomAuthorizerResponse,
};
use jsonwebtoken::jwk::{JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{Value, json};
use shared::domain::{PlayerId, PlayerIdError};

use crate::test_support::*;
use crate::*;

fn hs256_authorizer() -> Authorizer {
    Authorizer::new(
        AuthConfig::hs256(ISSUER, AUDIENCE, SECRET),
        Arc::new(StaticJwks::empty()),
    )
}

fn jwks_authorizer(keys: Arc<FakeJwks>) -> Authorizer {
    Authorizer::new(
        AuthConfig::jwks(ISSUER, AUDIENCE, "https://unused.example/jwks.json"),
        keys,
    )
}

fn header_authorizer() -> Authorizer {
    Authorizer::new(AuthConfig::header(), Arc::new(StaticJwks::empty()))
}

fn with_token(token: &str) -> ApiGatewayCustomAuthorizerRequestTypeRequest {
    connect_request(&[("token", token)], &[])
}

fn player(id: &str) -> PlayerId {
    PlayerId::parse(id).expect("valid id")
}

fn invalid(why: CredentialError) -> Decision {
    Decision::Deny(DenyReason::InvalidCredentials(why))
}

async fn respond(
    authorizer: &Authorizer,
    request: ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> Value {
    let response: ApiGatewayCustomAuthorizerResponse = authorizer
        .handle(event(request))
        .await
        .expect("the handler never fails");
    serde_json::to_value(response).expect("serializable")
}

fn allow_response(player_id: &str) -> Value {
    json!({
        "principalId": player_id,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{
                "Action": ["execute-api:Invoke"],
                "Effect": "Allow",
                "Resource": [METHOD_ARN]
            }]
        },
        "context": { "playerId": player_id },
        "usageIdentifierKey": null
    })
}

fn deny_response() -> Value {
    json!({
        "principalId": "anonymous",
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{
                "Action": ["execute-api:Invoke"],
                "Effect": "Deny",
                "Resource": [METHOD_ARN]
            }]
        },
        "context": {},
        "usageIdentifierKey": null
    })
}

// ---- HS256 -------------------------------------------------------------------------

#[tokio::test]
async fn given_a_valid_hs256_token_in_the_query_when_handled_then_allow_on_the_method_arn_with_the_player_in_context()
 {
    let token = hs256(&claims("alice"));
    let response = respond(&hs256_authorizer(), with_token(&token)).await;
    assert_eq!(response, allow_response("alice"));
}

#[tokio::test]
async fn given_a_token_in_the_authorization_header_when_authorized_then_allowed_whatever_the_scheme_case()
 {
    let token = hs256(&claims("bob"));
    for value in [
        format!("Bearer {token}"),
        format!("bearer {token}"),
        format!("BEARER   {token}"),
    ] {
        let request = connect_request(&[], &[("Authorization", &value)]);
        assert_eq!(
            hs256_authorizer().authorize(&request).await,
            Decision::Allow(player("bob")),
            "{value:.12}"
        );
    }
}

#[tokio::test]
async fn given_a_lowercase_authorization_header_name_when_authorized_then_allowed() {
    let token = hs256(&claims("bob"));
    let request = connect_request(&[], &[("authorization", &format!("Bearer {token}"))]);
    assert_eq!(
        hs256_authorizer().authorize(&request).await,
        Decision::Allow(player("bob"))
    );
}

#[tokio::test]
async fn given_no_token_when_handled_then_deny_as_missing_credentials_with_status_401() {
    let authorizer = hs256_authorizer();
    let request = connect_request(&[], &[]);
    let decision = authorizer.authorize(&request).await;
    assert_eq!(decision, Decision::Deny(DenyReason::MissingCredentials));
    if let Decision::Deny(reason) = decision {
        assert_eq!(reason.http_status(), 401);
        assert_eq!(reason.code(), "missing_credentials");
    }
    assert_eq!(respond(&authorizer, request).await, deny_response());
}

#[tokio::test]
async fn given_an_empty_token_or_bearer_without_token_when_authorized_then_missing_credentials() {
    let authorizer = hs256_authorizer();
    for request in [
        with_token(""),
        connect_request(&[], &[("Authorization", "Bearer ")]),
        connect_request(&[], &[("Authorization", "")]),
    ] {
        assert_eq!(
            authorizer.authorize(&request).await,
            Decision::Deny(DenyReason::MissingCredentials)
        );
    }
}

#[tokio::test]
async fn given_another_authorization_scheme_when_authorized_then_invalid_credentials_with_status_403()
 {
    let request = connect_request(&[], &[("Authorization", "Basic YWxpY2U6c2VjcmV0")]);
    let decision = hs256_authorizer().authorize(&request).await;
    assert_eq!(decision, invalid(CredentialError::NotBearer));
    if let Decision::Deny(reason) = decision {
        assert_eq!(reason.http_status(), 403);
    }
}

#[tokio::test]
async fn given_an_expired_token_when_authorized_then_denied_as_expired() {
    let token = hs256(&claims_with("alice", json!({ "exp": now() - 120 })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::Expired)
    );
}

#[tokio::test]
async fn given_a_token_expired_less_than_the_leeway_ago_when_authorized_then_allowed() {
    let token = hs256(&claims_with("alice", json!({ "exp": now() - 10 })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        Decision::Allow(player("alice"))
    );
}

#[tokio::test]
async fn given_a_zero_leeway_when_a_token_expired_10_s_ago_then_denied() {
    let authorizer = Authorizer::new(
        AuthConfig::hs256(ISSUER, AUDIENCE, SECRET).with_leeway(Duration::ZERO),
        Arc::new(StaticJwks::empty()),
    );
    let token = hs256(&claims_with("alice", json!({ "exp": now() - 10 })));
    assert_eq!(
        authorizer.authorize(&with_token(&token)).await,
        invalid(CredentialError::Expired)
    );
}

#[tokio::test]
async fn given_a_token_not_valid_yet_when_authorized_then_denied() {
    let token = hs256(&claims_with("alice", json!({ "nbf": now() + 120 })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::NotYetValid)
    );
}

#[tokio::test]
async fn given_a_token_whose_nbf_is_within_the_leeway_when_authorized_then_allowed() {
    let token = hs256(&claims_with("alice", json!({ "nbf": now() + 10 })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        Decision::Allow(player("alice"))
    );
}

#[tokio::test]
async fn given_a_token_without_exp_when_authorized_then_denied() {
    let token = hs256(&claims_with("alice", json!({ "exp": null })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::MissingClaim("exp".into()))
    );
}

#[tokio::test]
async fn given_a_wrong_issuer_when_authorized_then_denied() {
    let token = hs256(&claims_with(
        "alice",
        json!({ "iss": "https://evil.example/" }),
    ));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::WrongIssuer)
    );
}

#[tokio::test]
async fn given_no_issuer_when_authorized_then_denied() {
    let token = hs256(&claims_with("alice", json!({ "iss": null })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::MissingClaim("iss".into()))
    );
}

#[tokio::test]
async fn given_a_wrong_audience_when_authorized_then_denied() {
    for aud in [json!("another-game"), json!(["another-game", "a-third"])] {
        let token = hs256(&claims_with("alice", json!({ "aud": aud })));
        assert_eq!(
            hs256_authorizer().authorize(&with_token(&token)).await,
            invalid(CredentialError::WrongAudience),
            "{aud}"
        );
    }
}

#[tokio::test]
async fn given_no_audience_when_authorized_then_denied() {
    let token = hs256(&claims_with("alice", json!({ "aud": null })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::MissingClaim("aud".into()))
    );
}

#[tokio::test]
async fn given_an_audience_array_containing_ours_when_authorized_then_allowed() {
    let token = hs256(&claims_with("alice", json!({ "aud": ["other", AUDIENCE] })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        Decision::Allow(player("alice"))
    );
}

#[tokio::test]
async fn given_a_token_signed_with_another_secret_when_authorized_then_bad_signature() {
    let token = sign(
        Algorithm::HS256,
        None,
        &claims("alice"),
        &EncodingKey::from_secret(b"another-secret-another-secret-another"),
    );
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::BadSignature)
    );
}

#[tokio::test]
async fn given_alg_none_when_authorized_then_denied_in_both_key_modes() {
    let unsigned = forged(
        &json!({ "alg": "none", "typ": "JWT" }),
        &claims("alice"),
        "",
    );
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&unsigned)).await,
        invalid(CredentialError::UnsupportedAlgorithm("none".into()))
    );
    let keys = FakeJwks::serving(published_keys());
    assert_eq!(
        jwks_authorizer(keys.clone())
            .authorize(&with_token(&unsigned))
            .await,
        invalid(CredentialError::UnsupportedAlgorithm("none".into()))
    );
    assert_eq!(keys.calls(), 0, "an unacceptable token needs no keys");
}

#[tokio::test]
async fn given_an_rs256_token_when_only_a_secret_is_configured_then_denied() {
    let token = rs256(&claims("alice"));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::UnsupportedAlgorithm("RS256".into()))
    );
}

#[tokio::test]
async fn given_a_token_without_sub_when_authorized_then_denied() {
    let token = hs256(&claims_with("alice", json!({ "sub": null })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::MissingClaim("sub".into()))
    );
}

#[tokio::test]
async fn given_a_sub_with_forbidden_characters_when_authorized_then_denied_naming_the_character() {
    let token = hs256(&claims("alice smith"));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::InvalidPlayerId(
            PlayerIdError::ForbiddenCharacter {
                found: ' ',
                position: 5
            }
        ))
    );
    let too_long = hs256(&claims(&"a".repeat(129)));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&too_long)).await,
        invalid(CredentialError::InvalidPlayerId(PlayerIdError::TooLong {
            len: 129
        }))
    );
}

#[tokio::test]
async fn given_a_non_string_sub_when_authorized_then_denied() {
    let token = hs256(&claims_with("alice", json!({ "sub": 42 })));
    let decision = hs256_authorizer().authorize(&with_token(&token)).await;
    assert!(
        matches!(decision, Decision::Deny(DenyReason::InvalidCredentials(_))),
        "{decision:?}"
    );
}

#[tokio::test]
async fn given_malformed_tokens_when_authorized_then_each_is_denied_as_malformed() {
    let valid = hs256(&claims("alice"));
    let mut parts = valid.split('.');
    let (header, payload) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    for token in [
        "garbage".to_owned(),
        "a.b".to_owned(),
        "a.b.c.d".to_owned(),
        "..".to_owned(),
        "!!!.???.***".to_owned(),
        format!("{header}.{payload}"),
        format!("{valid}.extra"),
        format!("not-base64!.{payload}.c2ln"),
        forged(
            &json!({ "alg": "HS256", "kid": 5 }),
            &claims("alice"),
            "c2ln",
        ),
        forged(&json!({ "alg": 256 }), &claims("alice"), "c2ln"),
    ] {
        assert_eq!(
            hs256_authorizer().authorize(&with_token(&token)).await,
            invalid(CredentialError::MalformedToken),
            "{token:.40}"
        );
    }
}

#[tokio::test]
async fn given_any_bad_token_when_handled_then_the_handler_answers_deny_and_never_err() {
    let authorizer = hs256_authorizer();
    for token in ["garbage", "a.b.c", "", "eyJhbGciOiJub25lIn0.e30."] {
        assert_eq!(
            respond(&authorizer, with_token(token)).await,
            deny_response(),
            "{token}"
        );
    }
}

#[tokio::test]
async fn given_an_event_without_method_arn_when_an_allowed_player_connects_then_deny_on_everything()
{
    let mut request = with_token(&hs256(&claims("alice")));
    request.method_arn = None;
    let response = respond(&hs256_authorizer(), request).await;
    assert_eq!(response["policyDocument"]["Statement"][0]["Effect"], "Deny");
    assert_eq!(
        response["policyDocument"]["Statement"][0]["Resource"],
        json!(["*"])
    );
}

// ---- JWKS: RS256 / ES256 -----------------------------------------------------------

#[tokio::test]
async fn given_a_valid_rs256_token_and_its_key_in_the_jwks_when_handled_then_allowed() {
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    let token = rs256(&claims("alice"));
    assert_eq!(
        respond(&authorizer, with_token(&token)).await,
        allow_response("alice")
    );
}

#[tokio::test]
async fn given_a_valid_es256_token_and_its_key_in_the_jwks_when_handled_then_allowed() {
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    let token = es256(&claims("carol@guild:eu"));
    assert_eq!(
        respond(&authorizer, with_token(&token)).await,
        allow_response("carol@guild:eu")
    );
}

#[tokio::test]
async fn given_rs256_and_es256_tokens_when_authorized_repeatedly_then_the_jwks_is_fetched_once() {
    let keys = FakeJwks::serving(published_keys());
    let authorizer = jwks_authorizer(keys.clone());
    for _ in 0..3 {
        assert!(matches!(
            authorizer
                .authorize(&with_token(&rs256(&claims("a"))))
                .await,
            Decision::Allow(_)
        ));
        assert!(matches!(
            authorizer
                .authorize(&with_token(&es256(&claims("b"))))
                .await,
            Decision::Allow(_)
        ));
    }
    assert_eq!(keys.calls(), 1);
}

#[tokio::test]
async fn given_an_rs256_token_with_a_tampered_signature_when_authorized_then_bad_signature() {
    let token = rs256(&claims("alice"));
    let (message, signature) = token.rsplit_once('.').expect("three parts");
    let mut sig = signature.as_bytes().to_vec();
    sig[10] = if sig[10] == b'A' { b'B' } else { b'A' };
    let tampered = format!("{message}.{}", String::from_utf8(sig).expect("ascii"));
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    assert_eq!(
        authorizer.authorize(&with_token(&tampered)).await,
        invalid(CredentialError::BadSignature)
    );
}

#[tokio::test]
async fn given_an_rs256_token_with_forged_claims_when_authorized_then_bad_signature() {
    let token = rs256(&claims("alice"));
    let forged_token = {
        let mut parts = token.split('.');
        let header = parts.next().unwrap_or_default();
        let _claims = parts.next();
        let signature = parts.next().unwrap_or_default();
        let other = forged(&json!({}), &claims("mallory"), "");
        let other_claims = other.split('.').nth(1).unwrap_or_default().to_owned();
        format!("{header}.{other_claims}.{signature}")
    };
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    assert_eq!(
        authorizer.authorize(&with_token(&forged_token)).await,
        invalid(CredentialError::BadSignature)
    );
}

#[tokio::test]
async fn given_an_hs256_token_signed_with_the_rsa_public_key_pem_when_a_jwks_is_configured_then_denied()
 {
    // Algorithm confusion: the attacker knows the public key and uses it as an HMAC secret.
    let keys = FakeJwks::serving(published_keys());
    let authorizer = jwks_authorizer(keys.clone());
    assert!(RSA.public_pem.starts_with("-----BEGIN PUBLIC KEY-----\n"));
    for kid in [Some(RSA_KID), None] {
        let token = sign(
            Algorithm::HS256,
            kid,
            &claims("mallory"),
            &EncodingKey::from_secret(RSA.public_pem.as_bytes()),
        );
        assert_eq!(
            authorizer.authorize(&with_token(&token)).await,
            invalid(CredentialError::UnsupportedAlgorithm("HS256".into()))
        );
    }
    assert_eq!(keys.calls(), 0);
}

#[tokio::test]
async fn given_other_jwks_algorithms_when_authorized_then_denied() {
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    let token = forged(
        &json!({ "alg": "RS512", "kid": RSA_KID }),
        &claims("alice"),
        "c2ln",
    );
    assert_eq!(
        authorizer.authorize(&with_token(&token)).await,
        invalid(CredentialError::UnsupportedAlgorithm("RS512".into()))
    );
}

#[tokio::test]
async fn given_a_token_without_kid_and_one_key_of_its_type_when_authorized_then_that_key_is_used() {
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    let rsa = sign(Algorithm::RS256, None, &claims("alice"), &RSA.encoding);
    let ec = sign(Algorithm::ES256, None, &claims("bob"), &EC.encoding);
    assert_eq!(
        authorizer.authorize(&with_token(&rsa)).await,
        Decision::Allow(player("alice"))
    );
    assert_eq!(
        authorizer.authorize(&with_token(&ec)).await,
        Decision::Allow(player("bob"))
    );
}

#[tokio::test]
async fn given_a_token_without_kid_and_two_keys_of_its_type_when_authorized_then_denied_as_ambiguous()
 {
    let mut second = RSA.jwk.clone();
    second.common.key_id = Some("rsa-test-2".into());
    let mut set = published_keys();
    set.keys.push(second);
    let authorizer = jwks_authorizer(FakeJwks::serving(set));
    let token = sign(Algorithm::RS256, None, &claims("alice"), &RSA.encoding);
    assert_eq!(
        authorizer.authorize(&with_token(&token)).await,
        invalid(CredentialError::AmbiguousKey)
    );
}

#[tokio::test]
async fn given_a_kid_naming_a_key_of_another_type_when_authorized_then_denied() {
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    let token = sign(
        Algorithm::RS256,
        Some(EC_KID),
        &claims("alice"),
        &RSA.encoding,
    );
    assert!(matches!(
        authorizer.authorize(&with_token(&token)).await,
        Decision::Deny(DenyReason::InvalidCredentials(
            CredentialError::KeyMismatch(_)
        ))
    ));
}

#[tokio::test]
async fn given_a_jwk_whose_alg_differs_from_the_tokens_when_authorized_then_denied() {
    let mut jwk = RSA.jwk.clone();
    jwk.common.key_algorithm = Some(KeyAlgorithm::RS384);
    let authorizer = jwks_authorizer(FakeJwks::serving(JwkSet { keys: vec![jwk] }));
    assert!(matches!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Deny(DenyReason::InvalidCredentials(
            CredentialError::KeyMismatch(_)
        ))
    ));
}

#[tokio::test]
async fn given_a_jwk_for_encryption_when_authorized_then_denied_and_a_signing_jwk_is_allowed() {
    let mut jwk = RSA.jwk.clone();
    jwk.common.public_key_use = Some(PublicKeyUse::Encryption);
    let authorizer = jwks_authorizer(FakeJwks::serving(JwkSet { keys: vec![jwk] }));
    assert!(matches!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Deny(DenyReason::InvalidCredentials(
            CredentialError::KeyMismatch(_)
        ))
    ));

    let mut jwk = RSA.jwk.clone();
    jwk.common.public_key_use = Some(PublicKeyUse::Signature);
    let authorizer = jwks_authorizer(FakeJwks::serving(JwkSet { keys: vec![jwk] }));
    assert_eq!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Allow(player("alice"))
    );
}

#[tokio::test]
async fn given_jwks_mode_when_claims_are_wrong_then_the_same_checks_apply() {
    let authorizer = jwks_authorizer(FakeJwks::serving(published_keys()));
    for (changes, expected) in [
        (json!({ "exp": now() - 120 }), CredentialError::Expired),
        (json!({ "nbf": now() + 120 }), CredentialError::NotYetValid),
        (
            json!({ "iss": "https://evil.example/" }),
            CredentialError::WrongIssuer,
        ),
        (json!({ "aud": "other" }), CredentialError::WrongAudience),
        (
            json!({ "sub": null }),
            CredentialError::MissingClaim("sub".into()),
        ),
    ] {
        let token = es256(&claims_with("alice", changes.clone()));
        assert_eq!(
            authorizer.authorize(&with_token(&token)).await,
            invalid(expected),
            "{changes}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn given_unknown_kids_when_authorized_then_the_jwks_is_refetched_at_most_once_a_minute() {
    let keys = FakeJwks::serving(published_keys());
    let authorizer = jwks_authorizer(keys.clone());
    // Warm: the first token fetches the keys.
    assert!(matches!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Allow(_)
    ));
    assert_eq!(keys.calls(), 1);

    // Within a minute of that fetch, unknown kids do not refetch.
    let garbage = |kid: &str| {
        sign(
            Algorithm::RS256,
            Some(kid),
            &claims("mallory"),
            &RSA.encoding,
        )
    };
    assert_eq!(
        authorizer.authorize(&with_token(&garbage("nope-0"))).await,
        invalid(CredentialError::UnknownKey)
    );
    assert_eq!(keys.calls(), 1);

    tokio::time::advance(Duration::from_secs(61)).await;
    // After a minute, one unknown kid triggers one refetch...
    for i in 1..=20 {
        assert_eq!(
            authorizer
                .authorize(&with_token(&garbage(&format!("nope-{i}"))))
                .await,
            invalid(CredentialError::UnknownKey)
        );
    }
    assert_eq!(keys.calls(), 2, "twenty garbage kids, one refetch");

    tokio::time::advance(Duration::from_secs(30)).await;
    let _ = authorizer.authorize(&with_token(&garbage("nope-21"))).await;
    assert_eq!(keys.calls(), 2, "still within the minute");

    tokio::time::advance(Duration::from_secs(31)).await;
    let _ = authorizer.authorize(&with_token(&garbage("nope-22"))).await;
    assert_eq!(keys.calls(), 3);

    // Known keys keep working throughout, without fetching.
    assert!(matches!(
        authorizer
            .authorize(&with_token(&es256(&claims("bob"))))
            .await,
        Decision::Allow(_)
    ));
    assert_eq!(keys.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn given_a_rotated_key_when_a_token_names_the_new_kid_then_one_refetch_finds_it() {
    let keys = FakeJwks::serving(JwkSet {
        keys: vec![EC.jwk.clone()],
    });
    let authorizer = jwks_authorizer(keys.clone());
    authorizer.warm_up().await;
    assert_eq!(keys.calls(), 1);

    keys.set(Some(published_keys())); // the issuer publishes the RSA key
    tokio::time::advance(Duration::from_secs(61)).await;
    assert_eq!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Allow(player("alice"))
    );
    assert_eq!(keys.calls(), 2);
}

#[tokio::test(start_paused = true)]
async fn given_keys_past_their_ttl_when_the_refetch_fails_then_the_cached_keys_are_still_used() {
    let keys = FakeJwks::serving(published_keys());
    let authorizer = jwks_authorizer(keys.clone());
    authorizer.warm_up().await;

    keys.set(None); // the endpoint goes down
    tokio::time::advance(Duration::from_secs(601)).await;
    assert_eq!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Allow(player("alice"))
    );
    assert_eq!(keys.calls(), 2, "the TTL triggered a refetch");

    keys.set(Some(JwkSet {
        keys: vec![EC.jwk.clone()],
    })); // back up, without the RSA key
    tokio::time::advance(Duration::from_secs(6)).await;
    assert_eq!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        invalid(CredentialError::UnknownKey),
        "the refreshed set no longer has the key"
    );
    assert_eq!(keys.calls(), 3);
}

#[tokio::test(start_paused = true)]
async fn given_an_unreachable_jwks_when_a_token_arrives_then_deny_keys_unavailable_and_retry_later()
{
    let keys = FakeJwks::failing();
    let authorizer = jwks_authorizer(keys.clone());
    let request = with_token(&rs256(&claims("alice")));

    let decision = authorizer.authorize(&request).await;
    assert_eq!(decision, Decision::Deny(DenyReason::KeysUnavailable));
    if let Decision::Deny(reason) = decision {
        assert_eq!(reason.http_status(), 403);
    }
    assert_eq!(respond(&authorizer, request.clone()).await, deny_response());
    assert_eq!(keys.calls(), 1, "failures are not retried on every request");

    keys.set(Some(published_keys()));
    tokio::time::advance(Duration::from_secs(5)).await;
    assert_eq!(
        authorizer.authorize(&request).await,
        Decision::Allow(player("alice"))
    );
    assert_eq!(keys.calls(), 2);
}

#[tokio::test]
async fn given_concurrent_requests_on_a_cold_cache_when_authorized_then_one_fetch_serves_them_all()
{
    let keys = FakeJwks::serving(published_keys());
    let authorizer = Arc::new(jwks_authorizer(keys.clone()));
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let authorizer = authorizer.clone();
            tokio::spawn(async move {
                authorizer
                    .authorize(&with_token(&rs256(&claims(&format!("p{i}")))))
                    .await
            })
        })
        .collect();
    for task in tasks {
        assert!(matches!(task.await.expect("task"), Decision::Allow(_)));
    }
    assert_eq!(keys.calls(), 1);
}

// ---- JWKS over HTTP ----------------------------------------------------------------

#[tokio::test]
async fn given_a_local_jwks_server_when_the_production_wiring_authorizes_then_keys_are_fetched_once_over_http()
 {
    let body = serde_json::to_string(&published_keys()).expect("json");
    let (base, hits) = serve(200, body).await;
    let config = AuthConfig::jwks(ISSUER, AUDIENCE, format!("{base}/.well-known/jwks.json"));
    let authorizer = Authorizer::from_config(config).expect("client");
    assert_eq!(
        authorizer
            .authorize(&with_token(&rs256(&claims("alice"))))
            .await,
        Decision::Allow(player("alice"))
    );
    assert_eq!(
        authorizer
            .authorize(&with_token(&es256(&claims("bob"))))
            .await,
        Decision::Allow(player("bob"))
    );
    assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn given_a_jwks_url_that_refuses_connections_when_authorized_then_deny_keys_unavailable() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    }; // closed again: nothing listens there
    let config = AuthConfig::jwks(
        ISSUER,
        AUDIENCE,
        format!("http://127.0.0.1:{port}/jwks.json"),
    );
    let authorizer = Authorizer::from_config(config).expect("client");
    let request = with_token(&rs256(&claims("alice")));
    assert_eq!(
        authorizer.authorize(&request).await,
        Decision::Deny(DenyReason::KeysUnavailable)
    );
}

// ---- Header mode -------------------------------------------------------------------

#[tokio::test]
async fn given_header_mode_and_a_player_id_in_the_query_when_handled_then_allowed() {
    let request = connect_request(&[("playerId", "player-1")], &[]);
    assert_eq!(
        respond(&header_authorizer(), request).await,
        allow_response("player-1")
    );
}

#[tokio::test]
async fn given_header_mode_and_an_x_player_id_header_in_any_case_when_authorized_then_allowed() {
    for name in ["X-Player-Id", "x-player-id", "X-PLAYER-ID"] {
        let request = connect_request(&[], &[(name, "Alice.B_2:team@eu-west")]);
        assert_eq!(
            header_authorizer().authorize(&request).await,
            Decision::Allow(player("Alice.B_2:team@eu-west")),
            "{name}"
        );
    }
}

#[tokio::test]
async fn given_header_mode_and_both_sources_when_authorized_then_the_query_wins() {
    let request = connect_request(
        &[("playerId", "from-query")],
        &[("X-Player-Id", "from-header")],
    );
    assert_eq!(
        header_authorizer().authorize(&request).await,
        Decision::Allow(player("from-query"))
    );
}

#[tokio::test]
async fn given_header_mode_and_an_invalid_player_id_when_handled_then_denied_as_invalid() {
    let authorizer = header_authorizer();
    let request = connect_request(&[("playerId", "bob/../admin")], &[]);
    let decision = authorizer.authorize(&request).await;
    assert_eq!(
        decision,
        invalid(CredentialError::InvalidPlayerId(
            PlayerIdError::ForbiddenCharacter {
                found: '/',
                position: 3
            }
        ))
    );
    assert_eq!(respond(&authorizer, request).await, deny_response());

    let spaced = connect_request(&[], &[("X-Player-Id", "al ice")]);
    assert!(matches!(
        authorizer.authorize(&spaced).await,
        Decision::Deny(DenyReason::InvalidCredentials(
            CredentialError::InvalidPlayerId(_)
        ))
    ));
}

#[tokio::test]
async fn given_header_mode_and_no_player_id_when_handled_then_denied_as_missing() {
    let authorizer = header_authorizer();
    for request in [
        connect_request(&[], &[]),
        connect_request(&[("playerId", "")], &[]),
        connect_request(&[], &[("X-Player-Id", "")]),
    ] {
        assert_eq!(
            authorizer.authorize(&request).await,
            Decision::Deny(DenyReason::MissingCredentials)
        );
        assert_eq!(respond(&authorizer, request).await, deny_response());
    }
}

#[tokio::test]
async fn given_header_mode_when_only_a_token_is_sent_then_denied_as_missing() {
    let request = with_token(&hs256(&claims("alice")));
    assert_eq!(
        header_authorizer().authorize(&request).await,
        Decision::Deny(DenyReason::MissingCredentials)
    );
}

// ---- Sample events (events/*.json, also used by `sam local invoke`) -----------------

/// The secret `events/authorizer-jwt.json`'s token is signed with. Test-only: it is in
/// the repository, so it must never be a deployed `JWT_HS256_SECRET`. The token carries
/// iss `https://auth.example.com/`, aud `gamelift-sockets`, sub `player-123`, and
/// exp 4102444800 (2100-01-01).
const SAMPLE_EVENT_SECRET: &str = "gamelift-sockets-sample-event-secret-NOT-FOR-PRODUCTION";

fn sample(json: &str) -> ApiGatewayCustomAuthorizerRequestTypeRequest {
    serde_json::from_str(json).expect("the sample event parses as an authorizer event")
}

#[tokio::test]
async fn given_the_header_mode_sample_event_when_handled_then_player_123_is_allowed() {
    let request = sample(include_str!(
        "../../../../events/authorizer-header-mode.json"
    ));
    assert_eq!(request.method_arn.as_deref(), Some(METHOD_ARN));
    assert_eq!(
        respond(&header_authorizer(), request).await,
        allow_response("player-123")
    );
}

#[tokio::test]
async fn given_the_jwt_sample_event_when_handled_with_its_documented_secret_then_player_123_is_allowed()
 {
    let request = sample(include_str!("../../../../events/authorizer-jwt.json"));
    let authorizer = Authorizer::new(
        AuthConfig::hs256(
            "https://auth.example.com/",
            "gamelift-sockets",
            SAMPLE_EVENT_SECRET,
        ),
        Arc::new(StaticJwks::empty()),
    );
    assert_eq!(
        respond(&authorizer, request).await,
        allow_response("player-123")
    );
}

#[tokio::test]
async fn given_the_jwt_sample_event_when_handled_with_another_secret_then_denied_as_bad_signature()
{
    let request = sample(include_str!("../../../../events/authorizer-jwt.json"));
    assert_eq!(
        Authorizer::new(
            AuthConfig::hs256("https://auth.example.com/", "gamelift-sockets", SECRET),
            Arc::new(StaticJwks::empty()),
        )
        .authorize(&request)
        .await,
        invalid(CredentialError::BadSignature)
    );
}

// ---- Explanations (one log line per refusal: what was wrong, what to do) ------------

async fn explained(
    authorizer: &Authorizer,
    request: ApiGatewayCustomAuthorizerRequestTypeRequest,
) -> String {
    match authorizer.authorize(&request).await {
        Decision::Deny(reason) => authorizer.explain(&request, &reason),
        allowed => panic!("expected a denial, got {allowed:?}"),
    }
}

#[tokio::test]
async fn given_header_mode_when_refused_then_the_explanation_says_what_to_send_and_the_rules() {
    let authorizer = header_authorizer();
    let token = hs256(&claims("alice"));
    let with_token = explained(&authorizer, with_token(&token)).await;
    assert!(
        with_token.contains("header mode (AUTH_MODE=header)"),
        "{with_token}"
    );
    assert!(with_token.contains("ignores ?token="), "{with_token}");
    assert!(with_token.contains("?playerId=<id>"), "{with_token}");
    assert!(
        !with_token.contains(&token),
        "the token leaked: {with_token}"
    );
    let bearer = connect_request(&[], &[("Authorization", "Bearer abc")]);
    assert!(
        explained(&authorizer, bearer)
            .await
            .contains("ignores ?token= and Authorization")
    );

    let nothing = explained(&authorizer, connect_request(&[], &[])).await;
    assert!(nothing.starts_with("no player id: "), "{nothing}");
    assert!(nothing.contains(PLAYER_ID_RULE), "{nothing}");

    for bad in ["bob/x", &"a".repeat(129)] {
        let why = explained(&authorizer, connect_request(&[("playerId", bad)], &[])).await;
        assert!(why.starts_with("invalid player id ("), "{why}");
        assert!(
            why.ends_with("1-128 characters of A-Z a-z 0-9 . _ : @ -"),
            "{why}"
        );
    }
}

#[tokio::test]
async fn given_jwt_mode_when_refused_then_the_explanation_names_the_claim_but_never_the_token() {
    let authorizer = hs256_authorizer();
    let cases = [
        (
            json!({ "exp": now() - 120 }),
            "the token's exp claim is in the past",
        ),
        (
            json!({ "nbf": now() + 3600 }),
            "the token's nbf claim is in the future",
        ),
        (
            json!({ "iss": "https://other.example/" }),
            "the token's iss claim is not",
        ),
        (
            json!({ "aud": "another-game" }),
            "the token's aud claim does not contain",
        ),
        (
            json!({ "sub": "al ice" }),
            "the token's sub claim is not a valid player id",
        ),
    ];
    for (changes, expected) in cases {
        let token = hs256(&claims_with("alice", changes));
        let why = explained(&authorizer, with_token(&token)).await;
        assert!(why.starts_with(expected), "{why}");
        assert!(!why.contains(&token), "the token leaked: {why}");
        assert!(
            !why.contains(std::str::from_utf8(SECRET).unwrap()),
            "the secret leaked: {why}"
        );
    }
    let iss = explained(
        &authorizer,
        with_token(&hs256(&claims_with("alice", json!({ "iss": "x" })))),
    )
    .await;
    assert!(iss.contains(&format!("{ISSUER:?} (JWT_ISSUER)")), "{iss}");

    let no_exp = hs256(&claims_with("alice", json!({ "exp": null })));
    let why = explained(&authorizer, with_token(&no_exp)).await;
    assert!(why.contains("no exp claim"), "{why}");

    let resigned = sign(
        Algorithm::HS256,
        None,
        &claims("alice"),
        &EncodingKey::from_secret(b"another-secret-of-at-least-32-bytes!!"),
    );
    let why = explained(&authorizer, with_token(&resigned)).await;
    assert!(why.contains("signature does not verify"), "{why}");
    assert!(why.contains("JWT_HS256_SECRET"), "{why}");

    let why = explained(&authorizer, with_token("not-a-jwt")).await;
    assert!(why.contains("not a well-formed JWT"), "{why}");

    let why = explained(&authorizer, connect_request(&[("playerId", "alice")], &[])).await;
    assert!(
        why.contains("jwt mode (AUTH_MODE=jwt), which ignores ?playerId="),
        "{why}"
    );
    let why = explained(&authorizer, connect_request(&[], &[])).await;
    assert!(why.starts_with("no token: "), "{why}");
}

// ---- Token hygiene: crit, iat, maximum lifetime ------------------------------------

fn hs256_with_header(header: jsonwebtoken::Header, claims: &Value) -> String {
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(SECRET)).expect("sign")
}

fn crit_header(names: &[&str]) -> jsonwebtoken::Header {
    let mut header = jsonwebtoken::Header::new(Algorithm::HS256);
    header.crit = Some(names.iter().map(|n| (*n).to_owned()).collect());
    header
}

fn lifetime_authorizer(max_seconds: u64) -> Authorizer {
    Authorizer::new(
        AuthConfig::hs256(ISSUER, AUDIENCE, SECRET)
            .with_max_lifetime(Some(Duration::from_secs(max_seconds))),
        Arc::new(StaticJwks::empty()),
    )
}

#[tokio::test]
async fn given_a_validly_signed_token_whose_crit_names_an_extension_when_authorized_then_denied() {
    for names in [vec!["exp-ext"], vec!["b64", "urn:example:x"], vec![]] {
        let token = hs256_with_header(crit_header(&names), &claims("alice"));
        let decision = hs256_authorizer().authorize(&with_token(&token)).await;
        let shown = match names.join(", ") {
            none if none.is_empty() => "an empty list".to_owned(),
            some => some,
        };
        assert_eq!(
            decision,
            invalid(CredentialError::CriticalExtension(shown)),
            "{names:?}"
        );
    }
    // Also in JWKS mode, before any key is fetched.
    let keys = FakeJwks::serving(published_keys());
    let mut header = crit_header(&["exp-ext"]);
    header.alg = Algorithm::ES256;
    header.kid = Some(EC_KID.into());
    let token = jsonwebtoken::encode(&header, &claims("alice"), &EC.encoding).expect("sign");
    assert_eq!(
        jwks_authorizer(keys.clone())
            .authorize(&with_token(&token))
            .await,
        invalid(CredentialError::CriticalExtension("exp-ext".into()))
    );
    assert_eq!(keys.calls(), 0);
}

#[tokio::test]
async fn given_crit_with_an_extension_parameter_jsonwebtoken_cannot_read_when_authorized_then_denied_for_crit()
 {
    // RFC 7797's unencoded payload: `"b64": false` is not a string header parameter.
    let token = forged(
        &json!({ "alg": "HS256", "crit": ["b64"], "b64": false }),
        &claims("alice"),
        "c2ln",
    );
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::CriticalExtension("b64".into()))
    );
}

#[tokio::test]
async fn given_a_crit_list_of_long_names_when_denied_then_only_short_printable_names_are_kept() {
    let long = "x".repeat(40);
    let token = hs256_with_header(crit_header(&[&long, "a b", "c", "d"]), &claims("alice"));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::CriticalExtension(format!(
            "{}, ab, c, ...",
            "x".repeat(16)
        )))
    );
}

#[tokio::test]
async fn given_a_token_issued_in_the_future_beyond_the_leeway_when_authorized_then_denied() {
    let token = hs256(&claims_with(
        "alice",
        json!({ "iat": now() + 120, "exp": now() + 600 }),
    ));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&token)).await,
        invalid(CredentialError::IssuedInTheFuture)
    );
    let within = hs256(&claims_with("alice", json!({ "iat": now() + 10 })));
    assert_eq!(
        hs256_authorizer().authorize(&with_token(&within)).await,
        Decision::Allow(player("alice")),
        "within the 30 s leeway"
    );
    let keys = FakeJwks::serving(published_keys());
    let rs = rs256(&claims_with(
        "alice",
        json!({ "iat": now() + 3600, "exp": now() + 7200 }),
    ));
    assert_eq!(
        jwks_authorizer(keys).authorize(&with_token(&rs)).await,
        invalid(CredentialError::IssuedInTheFuture)
    );
}

#[tokio::test]
async fn given_a_malformed_iat_when_authorized_then_denied_naming_it() {
    for iat in [json!("yesterday"), json!(-5), json!(1.5)] {
        let token = hs256(&claims_with("alice", json!({ "iat": iat })));
        assert_eq!(
            hs256_authorizer().authorize(&with_token(&token)).await,
            invalid(CredentialError::MalformedClaim("iat".into())),
            "{iat}"
        );
    }
}

#[tokio::test]
async fn given_no_max_lifetime_when_a_token_has_no_iat_or_lives_a_year_then_allowed() {
    let no_iat = hs256(&claims_with("alice", json!({ "iat": null })));
    let year = hs256(&claims_with("alice", json!({ "exp": now() + 31_536_000 })));
    for token in [no_iat, year] {
        assert_eq!(
            hs256_authorizer().authorize(&with_token(&token)).await,
            Decision::Allow(player("alice"))
        );
    }
}

#[tokio::test]
async fn given_a_max_lifetime_when_exp_minus_iat_exceeds_it_then_denied_and_at_it_allowed() {
    let authorizer = lifetime_authorizer(3600);
    let issued = now() - 60;
    let at_limit = hs256(&claims_with(
        "alice",
        json!({ "iat": issued, "exp": issued + 3600 }),
    ));
    assert_eq!(
        authorizer.authorize(&with_token(&at_limit)).await,
        Decision::Allow(player("alice"))
    );
    let over = hs256(&claims_with(
        "alice",
        json!({ "iat": issued, "exp": issued + 3601 }),
    ));
    assert_eq!(
        authorizer.authorize(&with_token(&over)).await,
        invalid(CredentialError::LifetimeTooLong)
    );
}

#[tokio::test]
async fn given_a_max_lifetime_when_a_token_has_no_iat_then_denied_as_missing_iat() {
    let token = hs256(&claims_with("alice", json!({ "iat": null })));
    assert_eq!(
        lifetime_authorizer(3600)
            .authorize(&with_token(&token))
            .await,
        invalid(CredentialError::MissingClaim("iat".into()))
    );
}

#[tokio::test]
async fn given_hygiene_refusals_when_explained_then_each_names_its_claim_or_header_and_never_the_token()
 {
    let issued = now();
    let cases = [
        (
            hs256_authorizer(),
            hs256_with_header(crit_header(&["exp-ext"]), &claims("alice")),
            "the token's crit header names extensions (exp-ext) that this stack does not understand",
        ),
        (
            hs256_authorizer(),
            hs256(&claims_with(
                "alice",
                json!({ "iat": issued + 3600, "exp": issued + 7200 }),
            )),
            "the token's iat claim is in the future (beyond the 30 s leeway)",
        ),
        (
            lifetime_authorizer(600),
            hs256(&claims_with(
                "alice",
                json!({ "iat": issued, "exp": issued + 601 }),
            )),
            "the token's exp is more than JWT_MAX_LIFETIME_SECONDS=600 s after its iat claim",
        ),
        (
            lifetime_authorizer(600),
            hs256(&claims_with("alice", json!({ "iat": null }))),
            "the token has no iat claim, which JWT_MAX_LIFETIME_SECONDS=600 requires",
        ),
        (
            hs256_authorizer(),
            hs256(&claims_with("alice", json!({ "iat": "now" }))),
            "the token's iat claim is malformed",
        ),
    ];
    for (authorizer, token, expected) in cases {
        let why = explained(&authorizer, with_token(&token)).await;
        assert!(why.starts_with(expected), "{why}");
        assert!(!why.contains(&token), "the token leaked: {why}");
        assert!(
            !why.contains(std::str::from_utf8(SECRET).unwrap()),
            "the secret leaked: {why}"
        );
    }
}

// ---- An HS256 secret that was never read -------------------------------------------

#[tokio::test]
async fn given_an_unread_parameter_or_an_empty_secret_when_a_token_arrives_then_never_allowed() {
    let unread = Authorizer::new(
        AuthConfig::Jwt(JwtConfig {
            keys: KeyConfig::Hs256Parameter {
                name: "/game/jwt".into(),
            },
            ..match AuthConfig::hs256(ISSUER, AUDIENCE, SECRET) {
                AuthConfig::Jwt(jwt) => jwt,
                AuthConfig::Header => unreachable!(),
            }
        }),
        Arc::new(StaticJwks::empty()),
    );
    let token = hs256(&claims("alice"));
    assert_eq!(
        unread.authorize(&with_token(&token)).await,
        Decision::Deny(DenyReason::KeysUnavailable)
    );
    let why = unread.explain(&with_token(&token), &DenyReason::KeysUnavailable);
    assert!(why.contains("JWT_HS256_SECRET_PARAMETER"), "{why}");

    // A token signed with the empty key would verify against an empty key: no such key
    // is ever built.
    let empty = Authorizer::new(
        AuthConfig::hs256(ISSUER, AUDIENCE, ""),
        Arc::new(StaticJwks::empty()),
    );
    let forged_with_empty_key = sign(
        Algorithm::HS256,
        None,
        &claims("mallory"),
        &EncodingKey::from_secret(b""),
    );
    assert_eq!(
        empty.authorize(&with_token(&forged_with_empty_key)).await,
        Decision::Deny(DenyReason::KeysUnavailable)
    );
}
