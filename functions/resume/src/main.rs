//! Lambda wiring only: the handler as `resume::wire` builds it, on AWS.

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    aws_adapters::lambda::serve_route(resume::wire).await
}
