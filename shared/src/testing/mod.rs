//! Contract suites shared by every adapter of a port: the in-memory adapter runs them in
//! unit tests, the DynamoDB adapter runs them against DynamoDB Local (tests/).

pub mod player_store_contract;
