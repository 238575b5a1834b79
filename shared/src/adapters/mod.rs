//! Adapters: the ports implemented on AWS (DynamoDB, API Gateway management API) and in
//! memory (tests and the local stack).

pub mod apigateway;
pub mod aws;
pub mod dynamodb;
pub mod eventbridge;
pub mod gamelift;
mod gamelift_connections;
mod gamelift_matchmaking;
pub mod memory;
