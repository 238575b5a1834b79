pub mod dynamodb;
pub mod stack;
