//! The outside services' ports on the local stack ([`shared::wiring::Services`]): the
//! `@connections` API of this stack's gateway, the in-process presence bus, the GameLift
//! simulator and the FlexMatch simulator (or nothing without a rule set).

use shared::wiring::ServiceSet;

use crate::gamelift::Simulator;
use crate::gateway::registry::LocalConnectionGateway;

pub type LocalServices = ServiceSet<LocalConnectionGateway, Simulator>;
