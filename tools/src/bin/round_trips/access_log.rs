//! The API Gateway access log line row: what the stage writes per message, measured from
//! template.yaml's format.

use std::sync::atomic::Ordering;

use shared::requests::Route;

use crate::Bench;

/// The stage's access log line (template.yaml, `AccessLogSettings.Format`, the settings
/// of `AccessLogs=Enabled` when they depend on it) as API
/// Gateway writes it for one heartbeat: every `$context` variable replaced by a value of
/// the length it has there. One such line is written per message, connect and
/// disconnect.
pub fn access_log_line(bench: &mut Bench) -> Result<(), lambda_runtime::Error> {
    let template = local::template::parse(local::template::TEMPLATE_YAML)?;
    let stage = template["Resources"]
        .as_object()
        .and_then(|resources| {
            resources
                .values()
                .find(|r| r["Type"] == "AWS::ApiGatewayV2::Stage")
        })
        .ok_or("template.yaml has no AWS::ApiGatewayV2::Stage")?;
    let settings = &stage["Properties"]["AccessLogSettings"];
    // `!If [WritesAccessLogs, {…}, !Ref AWS::NoValue]`: the line written when enabled.
    let settings = settings["Fn::If"].get(1).unwrap_or(settings);
    let format = &settings["Format"];
    let line = match format.as_str() {
        Some(format) => render_access_log(format),
        // No access logs (or a format this does not read): nothing written.
        None => String::new(),
    };
    bench.reset();
    if !line.is_empty() {
        bench
            .logs
            .bytes
            .store(line.len() as u64 + 1, Ordering::Relaxed);
        bench.logs.lines.store(1, Ordering::Relaxed);
    }
    bench.row(
        "access_log_line",
        "API Gateway access log line (one per message, connect and disconnect, with AccessLogs=Enabled)",
        "as short as still useful",
    );
    Ok(())
}

/// `format` with each `$context.…` variable replaced by a value as long as a heartbeat's.
fn render_access_log(format: &str) -> String {
    const VALUES: [(&str, &str); 12] = [
        ("$context.requestTimeEpoch", "1795323600123"),
        ("$context.requestId", "Kx8bNFq-IAMFZ3g="),
        ("$context.eventType", "MESSAGE"),
        ("$context.routeKey", Route::Heartbeat.as_str()),
        ("$context.connectionId", "L0SMzdjYvHcCKvg="),
        ("$context.status", "200"),
        ("$context.authorizer.principalId", "player-00000042"),
        ("$context.identity.sourceIp", "203.0.113.10"),
        ("$context.integrationLatency", "12"),
        ("$context.error.message", ""),
        ("$context.integration.error", ""),
        ("$context.integrationStatus", "200"),
    ];
    let mut line = format.to_owned();
    for (variable, value) in VALUES {
        line = line.replace(variable, value);
    }
    line
}
