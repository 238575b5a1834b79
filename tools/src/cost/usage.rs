//! What operations consume, as numbers that add up: one [`Work`] per operation (from
//! the measured counts), scaled by how often it happens and summed into a [`Bill`] of
//! billed quantities per feature and service line.

use std::collections::BTreeMap;
use std::fmt;

use crate::counts::Operation;

/// The parts of the system a cost belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// Knowing who is online and telling watchers: heartbeats, the sweeper, presence
    /// events, their fan-out and delivery, subscriptions.
    Presence,
    /// `sendMessage` and the delivery of each message.
    Messaging,
    /// A placement request, its result event and the result's delivery.
    Placement,
    /// The connection itself: connection minutes, authorizer, `$connect`, `resume`,
    /// `$disconnect`.
    Connections,
}

impl Feature {
    pub const ALL: [Feature; 4] = [
        Feature::Presence,
        Feature::Messaging,
        Feature::Placement,
        Feature::Connections,
    ];
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Feature::Presence => "presence",
            Feature::Messaging => "messaging",
            Feature::Placement => "placement",
            Feature::Connections => "connections",
        })
    }
}

/// A billed line: a service's unit, priced by one key of the prices file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Line {
    ApiGatewayMessages,
    ApiGatewayConnectionMinutes,
    ApiGatewayGetConnection,
    LambdaRequests,
    LambdaGbSeconds,
    DynamoDbReads,
    DynamoDbWrites,
    EventBridgeEvents,
    SnsPublishes,
    CloudWatchLogsGb,
    XRayTraces,
    AppSyncOperations,
    AppSyncRealtimeUpdates,
    AppSyncConnectionMinutes,
    ElastiCacheNodeHours,
    NatGatewayHours,
    NatGatewayGb,
}

impl Line {
    pub const ALL: [Line; 17] = [
        Line::ApiGatewayMessages,
        Line::ApiGatewayConnectionMinutes,
        Line::ApiGatewayGetConnection,
        Line::LambdaRequests,
        Line::LambdaGbSeconds,
        Line::DynamoDbReads,
        Line::DynamoDbWrites,
        Line::EventBridgeEvents,
        Line::SnsPublishes,
        Line::CloudWatchLogsGb,
        Line::XRayTraces,
        Line::AppSyncOperations,
        Line::AppSyncRealtimeUpdates,
        Line::AppSyncConnectionMinutes,
        Line::ElastiCacheNodeHours,
        Line::NatGatewayHours,
        Line::NatGatewayGb,
    ];

    /// The key of its price in the prices file.
    pub fn price_key(self) -> &'static str {
        match self {
            Line::ApiGatewayMessages => "apigateway_websocket_message",
            Line::ApiGatewayConnectionMinutes => "apigateway_websocket_connection_minute",
            Line::ApiGatewayGetConnection => "apigateway_get_connection",
            Line::LambdaRequests => "lambda_request",
            Line::LambdaGbSeconds => "lambda_arm_gb_second",
            Line::DynamoDbReads => "dynamodb_read_request_unit",
            Line::DynamoDbWrites => "dynamodb_write_request_unit",
            Line::EventBridgeEvents => "eventbridge_custom_event",
            Line::SnsPublishes => "sns_publish",
            Line::CloudWatchLogsGb => "cloudwatch_logs_ingestion_gb",
            Line::XRayTraces => "xray_trace_recorded",
            Line::AppSyncOperations => "appsync_operation",
            Line::AppSyncRealtimeUpdates => "appsync_realtime_update",
            Line::AppSyncConnectionMinutes => "appsync_connection_minute",
            Line::ElastiCacheNodeHours => "elasticache_smallest_node_hour",
            Line::NatGatewayHours => "nat_gateway_hour",
            Line::NatGatewayGb => "nat_gateway_gb",
        }
    }

    /// What the line is called in the table.
    pub fn name(self) -> &'static str {
        match self {
            Line::ApiGatewayMessages => "API Gateway messages",
            Line::ApiGatewayConnectionMinutes => "API Gateway connection minutes",
            Line::ApiGatewayGetConnection => "API Gateway GetConnection calls",
            Line::LambdaRequests => "Lambda requests",
            Line::LambdaGbSeconds => "Lambda GB-seconds",
            Line::DynamoDbReads => "DynamoDB read units",
            Line::DynamoDbWrites => "DynamoDB write units (incl. index)",
            Line::EventBridgeEvents => "EventBridge events",
            Line::SnsPublishes => "SNS publishes",
            Line::CloudWatchLogsGb => "CloudWatch Logs ingestion",
            Line::XRayTraces => "X-Ray traces",
            Line::AppSyncOperations => "AppSync operations",
            Line::AppSyncRealtimeUpdates => "AppSync real-time updates",
            Line::AppSyncConnectionMinutes => "AppSync connection minutes",
            Line::ElastiCacheNodeHours => "ElastiCache node (smallest, always on)",
            Line::NatGatewayHours => "NAT gateway hours",
            Line::NatGatewayGb => "NAT gateway data",
        }
    }
}

/// What some work consumes, in the units the services bill (counts, bytes, ms).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Work {
    pub lambda_invocations: f64,
    /// Billed milliseconds, summed over the invocations.
    pub lambda_ms: f64,
    pub read_units: f64,
    /// Table and index write units, and writes refused by their condition.
    pub write_units: f64,
    pub inbound_messages: f64,
    /// Replies and `@connections` posts.
    pub outbound_messages: f64,
    /// `@connections` GetConnection calls (the sweeper asking when a socket was last
    /// active): no message to the client.
    pub get_connection_calls: f64,
    pub events: f64,
    pub sns_publishes: f64,
    pub log_bytes: f64,
    pub appsync_operations: f64,
    pub appsync_realtime_updates: f64,
    pub nat_bytes: f64,
}

impl Work {
    /// What a measured operation consumed. Each invocation is billed its measured time
    /// rounded up to the next millisecond (Lambda's granularity); a write refused by
    /// its condition is billed one write unit (items here are under 1 KB).
    pub fn of(op: &Operation) -> Self {
        let invocations = f64::from(op.lambda_invocations);
        let billed_ms = if op.lambda_invocations == 0 {
            0.0
        } else {
            (op.lambda_ms / invocations).ceil().max(1.0) * invocations
        };
        Self {
            lambda_invocations: invocations,
            lambda_ms: billed_ms,
            read_units: op.read_units,
            write_units: op.write_units + op.index_write_units + op.failed_conditions as f64,
            inbound_messages: 0.0,
            outbound_messages: (op.replies + op.posts()) as f64,
            get_connection_calls: op
                .management_calls
                .get("GetConnection")
                .copied()
                .unwrap_or_default() as f64,
            events: op.events_published as f64,
            sns_publishes: 0.0,
            log_bytes: op.log_bytes as f64,
            appsync_operations: 0.0,
            appsync_realtime_updates: 0.0,
            nat_bytes: 0.0,
        }
    }

    fn zip(&self, other: &Self, f: impl Fn(f64, f64) -> f64) -> Self {
        Self {
            lambda_invocations: f(self.lambda_invocations, other.lambda_invocations),
            lambda_ms: f(self.lambda_ms, other.lambda_ms),
            read_units: f(self.read_units, other.read_units),
            write_units: f(self.write_units, other.write_units),
            inbound_messages: f(self.inbound_messages, other.inbound_messages),
            outbound_messages: f(self.outbound_messages, other.outbound_messages),
            get_connection_calls: f(self.get_connection_calls, other.get_connection_calls),
            events: f(self.events, other.events),
            sns_publishes: f(self.sns_publishes, other.sns_publishes),
            log_bytes: f(self.log_bytes, other.log_bytes),
            appsync_operations: f(self.appsync_operations, other.appsync_operations),
            appsync_realtime_updates: f(
                self.appsync_realtime_updates,
                other.appsync_realtime_updates,
            ),
            nat_bytes: f(self.nat_bytes, other.nat_bytes),
        }
    }

    pub fn plus(&self, other: &Self) -> Self {
        self.zip(other, |a, b| a + b)
    }

    /// What `self` does beyond `base` (never below zero): the marginal work of a
    /// measured difference, e.g. one more recipient.
    pub fn minus(&self, base: &Self) -> Self {
        self.zip(base, |a, b| (a - b).max(0.0))
    }

    pub fn times(&self, factor: f64) -> Self {
        self.zip(self, |a, _| a * factor)
    }
}

/// Billed quantities per feature and line, plus Lambda invocations per function (for
/// X-Ray's per-function sampling).
#[derive(Clone, Debug, Default)]
pub struct Bill {
    pub quantities: BTreeMap<(Feature, Line), f64>,
    pub invocations: BTreeMap<(&'static str, Feature), f64>,
    /// Timer frames sent as `ping` (none in a tree without the route).
    pub pings: f64,
}

impl Bill {
    pub fn add(&mut self, feature: Feature, line: Line, quantity: f64) {
        if quantity != 0.0 {
            *self.quantities.entry((feature, line)).or_default() += quantity;
        }
    }

    /// `work`, done `times` times a month by `function` (its Lambda invocations, if any,
    /// are that function's), for `feature`. Memory sizes the GB-seconds.
    pub fn add_work(
        &mut self,
        feature: Feature,
        function: &'static str,
        work: &Work,
        times: f64,
        memory_gb: f64,
    ) {
        let w = work.times(times);
        self.add(feature, Line::LambdaRequests, w.lambda_invocations);
        self.add(
            feature,
            Line::LambdaGbSeconds,
            w.lambda_ms / 1000.0 * memory_gb,
        );
        self.add(feature, Line::DynamoDbReads, w.read_units);
        self.add(feature, Line::DynamoDbWrites, w.write_units);
        self.add(
            feature,
            Line::ApiGatewayMessages,
            w.inbound_messages + w.outbound_messages,
        );
        self.add(
            feature,
            Line::ApiGatewayGetConnection,
            w.get_connection_calls,
        );
        self.add(feature, Line::EventBridgeEvents, w.events);
        self.add(feature, Line::SnsPublishes, w.sns_publishes);
        self.add(feature, Line::CloudWatchLogsGb, w.log_bytes / 1e9);
        self.add(feature, Line::AppSyncOperations, w.appsync_operations);
        self.add(
            feature,
            Line::AppSyncRealtimeUpdates,
            w.appsync_realtime_updates,
        );
        self.add(feature, Line::NatGatewayGb, w.nat_bytes / 1e9);
        if w.lambda_invocations > 0.0 {
            *self.invocations.entry((function, feature)).or_default() += w.lambda_invocations;
        }
    }

    /// X-Ray traces recorded when every function traces with the default sampling rule
    /// (the first request each second and 5 % of the rest, per function), spread over
    /// the features each function's invocations served.
    pub fn add_xray_default_sampling(&mut self, seconds: f64) {
        let mut per_function: BTreeMap<&'static str, f64> = BTreeMap::new();
        for ((function, _), n) in &self.invocations {
            *per_function.entry(function).or_default() += n;
        }
        let mut traces = Vec::new();
        for ((function, feature), n) in &self.invocations {
            let total = per_function[function];
            let rate = total / seconds;
            let sampled = seconds * (rate.min(1.0) + 0.05 * (rate - 1.0).max(0.0));
            traces.push((*feature, sampled * n / total));
        }
        for (feature, n) in traces {
            self.add(feature, Line::XRayTraces, n);
        }
    }

    /// The quantity of `line` for `feature`.
    pub fn quantity(&self, feature: Feature, line: Line) -> f64 {
        self.quantities
            .get(&(feature, line))
            .copied()
            .unwrap_or_default()
    }
}
