package main

// The request frames, field for field and in the same order as the official SDK's
// structs (model/request/*.go embedding model/message/message.go's Message), so that
// encoding/json writes the same bytes: Action and RequestId first, omitempty where the SDK
// has it.

import "github.com/google/uuid"

// model/message/message.go (Message, NewMessage): a UUIDv4 RequestId per request.
type message struct {
	Action    string `json:"Action"`
	RequestID string `json:"RequestId"`
}

func newMessage(action string) message {
	return message{Action: action, RequestID: uuid.New().String()}
}

func (m message) header() message { return m }

// request is any frame the game server sends.
type request interface{ header() message }

// model/request/activate_server_process.go. LogPaths has no omitempty: the SDK sends null
// when there are none.
type activateServerProcess struct {
	message
	SdkVersion     string   `json:"SdkVersion"`
	SdkLanguage    string   `json:"SdkLanguage"`
	SdkToolName    string   `json:"SdkToolName,omitempty"`
	SdkToolVersion string   `json:"SdkToolVersion,omitempty"`
	Port           int      `json:"Port,omitempty"`
	LogPaths       []string `json:"LogPaths"`
}

// model/request/heartbeat_server_process.go.
type heartbeatServerProcess struct {
	message
	HealthStatus bool `json:"HealthStatus"`
}

// model/request/activate_game_session.go.
type activateGameSession struct {
	message
	GameSessionID string `json:"GameSessionId"`
}

// model/request/accept_player_session.go and remove_player_session.go share this shape.
type playerSessionRequest struct {
	message
	GameSessionID   string `json:"GameSessionId"`
	PlayerSessionID string `json:"PlayerSessionId"`
}

// model/request/describe_player_sessions.go: every field omitempty.
type describePlayerSessions struct {
	message
	GameSessionID             string `json:"GameSessionId,omitempty"`
	PlayerID                  string `json:"PlayerId,omitempty"`
	PlayerSessionID           string `json:"PlayerSessionId,omitempty"`
	PlayerSessionStatusFilter string `json:"PlayerSessionStatusFilter,omitempty"`
	NextToken                 string `json:"NextToken,omitempty"`
	Limit                     int    `json:"Limit,omitempty"`
}

// model/request/get_fleet_role_credentials.go.
type getFleetRoleCredentials struct {
	message
	RoleArn         string `json:"RoleArn,omitempty"`
	RoleSessionName string `json:"RoleSessionName,omitempty"`
}

// model/request/get_compute_certificate.go and terminate_server_process.go carry nothing
// but the Message.
type bare struct {
	message
}
