module gamelift-sockets/go-conformance

go 1.26

require (
	github.com/google/uuid v1.5.0
	github.com/gorilla/websocket v1.5.1
)

require golang.org/x/net v0.17.0 // indirect
