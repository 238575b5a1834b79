//! The ports on AWS: DynamoDB (one module per table's item mapping, one per store), the
//! API Gateway management API, GameLift (placements, player sessions, connection details, FlexMatch) and
//! EventBridge, built from one SDK configuration ([`aws`]) by a function's wiring
//! ([`wiring`]), each declaring the AWS calls it can make ([`calls`]). Only Lambda
//! `main.rs` files ([`lambda`]), the local stack (DynamoDB Local) and the tools link it.

pub mod apigateway;
pub mod aws;
mod backoff;
#[cfg(any(test, feature = "test-support"))]
pub mod call_counter;
pub mod calls;
pub mod dynamodb;
pub mod eventbridge;
pub mod gamelift;
mod gamelift_connections;
mod gamelift_matchmaking;
#[cfg(test)]
mod gamelift_mocks;
pub mod lambda;
pub mod wiring;
