//! The outside services' ports on the local stack ([`shared::wiring::Services`]): the
//! `@connections` API of this stack's gateway, the in-process presence bus, the GameLift
//! simulator and the FlexMatch simulator (or nothing without a rule set).

use std::sync::Arc;

use shared::ports::{
    ConnectionGateway, ConnectionProbe, EventBus, Matchmaker, PlacementStarter, PlacementStopper,
    PlayerConnections, PlayerSessions,
};
use shared::wiring::Services;

use crate::gamelift::Simulator;
use crate::gateway::registry::LocalConnectionGateway;

pub struct LocalServices {
    pub gateway: Arc<LocalConnectionGateway>,
    pub events: Arc<dyn EventBus>,
    pub gamelift: Arc<Simulator>,
    pub matchmaker: Arc<dyn Matchmaker>,
}

impl Services for LocalServices {
    fn connection_gateway(&self) -> Arc<dyn ConnectionGateway> {
        self.gateway.clone()
    }
    fn connection_probe(&self) -> Arc<dyn ConnectionProbe> {
        self.gateway.clone()
    }
    fn event_bus(&self) -> Arc<dyn EventBus> {
        self.events.clone()
    }
    fn placement_starter(&self) -> Arc<dyn PlacementStarter> {
        self.gamelift.clone()
    }
    fn placement_stopper(&self) -> Arc<dyn PlacementStopper> {
        self.gamelift.clone()
    }
    fn player_sessions(&self) -> Arc<dyn PlayerSessions> {
        self.gamelift.clone()
    }
    fn player_connections(&self) -> Arc<dyn PlayerConnections> {
        self.gamelift.clone()
    }
    fn matchmaker(&self) -> Arc<dyn Matchmaker> {
        self.matchmaker.clone()
    }
}
