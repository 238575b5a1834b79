package main

// The wire side of GameLift server SDK 5 as the official Go SDK 5.6.0 speaks it
// (github.com/amazon-gamelift/amazon-gamelift-servers-go-server-sdk, tag v5.6.0). Only
// its behaviour is reproduced here, written anew; each piece names the SDK file it mirrors.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"
)

// Mirrors common/consts.go (SdkVersion, SdkLanguage and the query keys).
const (
	sdkVersion  = "5.6.0"
	sdkLanguage = "Go"
	userAgent   = "gamelift-go-sdk/1.0" // server/internal/transport/websocket.go (Connect)
)

// Mirrors common/consts.go: ServiceCallTimeoutDefault, and server/server_state.go's
// ActivateServerProcessRequestTimeoutInSeconds (ProcessReady waits 6 s, not 20).
const (
	serviceCallTimeout       = 20 * time.Second
	activateProcessTimeout   = 6 * time.Second
	serviceBufferSizeDefault = 2048
)

// The push Actions the SDK registers handlers for: server/internal/gamelift_manager.go (Connect).
var pushActions = map[string]bool{
	"CreateGameSession": true,
	"UpdateGameSession": true,
	"TerminateProcess":  true,
	"RefreshConnection": true,
}

// env holds the GAMELIFT_SDK_* variables the GameLift agent exports, read as
// server/server_state.go (init) and server/gamelift_server_api.go (InitSDKFromEnvironment) do.
type env struct {
	websocketURL, processID, hostID, fleetID, authToken string
}

func readEnv() (env, error) {
	e := env{
		websocketURL: os.Getenv("GAMELIFT_SDK_WEBSOCKET_URL"),
		processID:    os.Getenv("GAMELIFT_SDK_PROCESS_ID"),
		hostID:       os.Getenv("GAMELIFT_SDK_HOST_ID"),
		fleetID:      os.Getenv("GAMELIFT_SDK_FLEET_ID"),
		authToken:    os.Getenv("GAMELIFT_SDK_AUTH_TOKEN"),
	}
	var missing []string
	for _, v := range []struct{ name, value string }{
		{"GAMELIFT_SDK_WEBSOCKET_URL", e.websocketURL},
		{"GAMELIFT_SDK_PROCESS_ID", e.processID},
		{"GAMELIFT_SDK_HOST_ID", e.hostID},
		{"GAMELIFT_SDK_FLEET_ID", e.fleetID},
	} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return e, fmt.Errorf("missing %s (export the lines the local stack's banner prints)", strings.Join(missing, ", "))
	}
	// Client-side checks of server/validation.go (ValidateServerParameters): an endpoint
	// must hand out ids that pass them, or the SDK refuses before dialling.
	if !guidPattern.MatchString(e.fleetID) || len(e.fleetID) > 256 {
		return e, fmt.Errorf("GAMELIFT_SDK_FLEET_ID %q fails the SDK's pattern %s", e.fleetID, guidPattern)
	}
	if !computeIDPattern.MatchString(e.hostID) || len(e.hostID) > 256 {
		return e, fmt.Errorf("GAMELIFT_SDK_HOST_ID %q fails the SDK's pattern %s", e.hostID, computeIDPattern)
	}
	return e, nil
}

// connectURL builds the upgrade URL as server/internal/gamelift_manager.go (Connect) does:
// url.Values.Encode (keys sorted, values escaped), a fresh UUIDv4 IdempotencyToken per
// Connect, Authorization only when there is an auth token.
func connectURL(e env) (string, error) {
	u, err := url.Parse(e.websocketURL)
	if err != nil {
		return "", fmt.Errorf("GAMELIFT_SDK_WEBSOCKET_URL: %w", err)
	}
	params := url.Values{}
	params.Add("pID", e.processID)
	params.Add("sdkVersion", sdkVersion)
	params.Add("sdkLanguage", sdkLanguage)
	params.Add("ComputeId", e.hostID)
	params.Add("FleetId", e.fleetID)
	params.Add("IdempotencyToken", uuid.New().String())
	if e.authToken != "" {
		params.Add("Authorization", e.authToken)
	}
	u.RawQuery = params.Encode()
	return u.String(), nil
}

// answer is one service frame as server/internal/websocket_client.go (readHandler) reads it
// first: model/message/message.go (ResponseMessage).
type answer struct {
	Action       string `json:"Action"`
	RequestID    string `json:"RequestId"`
	StatusCode   int    `json:"StatusCode"`
	ErrorMessage string `json:"ErrorMessage"`
	raw          []byte
}

// serviceError is a non-200 answer; common/errors.go maps its status to an error type.
type serviceError struct {
	status  int
	message string
}

func (e *serviceError) Error() string {
	return fmt.Sprintf("StatusCode %d: %s", e.status, e.message)
}

// sdkConn is one process's link to the service: the socket of the moment, the calls
// waiting for their answer (by RequestId) and the pushes (by Action).
type sdkConn struct {
	url    string // kept whole, so a reconnect reuses the same IdempotencyToken
	dialer *websocket.Dialer

	writeMu sync.Mutex
	ws      *websocket.Conn

	mu      sync.Mutex
	pending map[string]chan answer

	pushes chan answer
	fatal  func(format string, args ...any)
	ending atomic.Bool // ProcessEnding sent: heartbeats stop, a close from the service is expected
}

func dial(rawURL string, fatal func(string, ...any)) (*sdkConn, error) {
	c := &sdkConn{
		url: rawURL,
		// server/internal/transport/dialer.go (NewDialer): gorilla's Dialer, buffers of
		// SERVICE_BUFFER_SIZE (2048), no TLS settings, so wss trusts the system roots
		// (SSL_CERT_FILE on Linux).
		dialer: &websocket.Dialer{
			ReadBufferSize:  serviceBufferSizeDefault,
			WriteBufferSize: serviceBufferSizeDefault,
		},
		pending: map[string]chan answer{},
		pushes:  make(chan answer, 16),
		fatal:   fatal,
	}
	if err := c.connect(); err != nil {
		return nil, err
	}
	return c, nil
}

// connect opens the first socket on c.url.
func (c *sdkConn) connect() error {
	logf("dialling %s", c.url)
	ws, err := c.open()
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	c.ws = ws
	c.writeMu.Unlock()
	go c.read(ws)
	return nil
}

// open dials c.url once. The SDK retries a refused upgrade for about three minutes
// (server/internal/transport/websocket.go, Connect); here a refusal is a finding, so it is
// reported at once, with the service's body.
func (c *sdkConn) open() (*websocket.Conn, error) {
	ws, resp, err := c.dialer.Dial(c.url, http.Header{"User-Agent": []string{userAgent}})
	if err != nil {
		if resp != nil {
			body := make([]byte, 512)
			n, _ := resp.Body.Read(body)
			return nil, fmt.Errorf("upgrade refused: %s: %s", resp.Status, body[:n])
		}
		return nil, fmt.Errorf("upgrade failed: %w", err)
	}
	return ws, nil
}

// read mirrors server/internal/transport/websocket.go (readProcess): text frames only,
// each handed to the read handler.
func (c *sdkConn) read(ws *websocket.Conn) {
	for {
		kind, data, err := ws.ReadMessage()
		if err != nil {
			c.writeMu.Lock()
			current := c.ws == ws
			c.writeMu.Unlock()
			// Once ProcessEnding is sent the service may close; before that, a close it
			// makes would send the SDK into reconnecting, which this game does not expect.
			if current && !c.ending.Load() {
				c.fatal("the service closed the socket: %v", err)
			}
			return // a socket this process dropped on purpose, or the end
		}
		if kind != websocket.TextMessage {
			logf("<- non-text frame ignored (as the SDK does)")
			continue
		}
		logf("<- %s", data)
		c.handle(data)
	}
}

// handle mirrors server/internal/websocket_client.go (readHandler): a frame with a
// RequestId and a StatusCode other than 200 (a missing one included) is an error answer to
// that request, never a push; otherwise a push Action goes to its handler and anything
// else answers its RequestId.
func (c *sdkConn) handle(data []byte) {
	var a answer
	if err := json.Unmarshal(data, &a); err != nil {
		c.fatal("frame is not a JSON object (the SDK logs and drops it): %v: %s", err, data)
	}
	a.raw = data
	if a.StatusCode != http.StatusOK && a.RequestID != "" {
		c.deliver(a)
		return
	}
	if pushActions[a.Action] {
		c.pushes <- a
		return
	}
	c.deliver(a)
}

func (c *sdkConn) deliver(a answer) {
	c.mu.Lock()
	waiting, ok := c.pending[a.RequestID]
	delete(c.pending, a.RequestID)
	c.mu.Unlock()
	if !ok {
		// The SDK drops it silently (sendResponse finds no waiter): a push sent with a
		// RequestId and no StatusCode 200 never reaches the game, so it is a deviation.
		c.fatal("frame matches no request waiting (RequestId %q, StatusCode %d, Action %q): the official SDK would drop it", a.RequestID, a.StatusCode, a.Action)
	}
	waiting <- a
}

// call sends req and waits for its answer as server/internal/websocket_client.go
// (HandleRequest) does. Error answers come back as *serviceError; result, when not nil,
// receives the answer's fields.
func (c *sdkConn) call(req request, timeout time.Duration, result any) error {
	id, action := req.header().RequestID, req.header().Action
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	waiting := make(chan answer, 1)
	c.mu.Lock()
	c.pending[id] = waiting
	c.mu.Unlock()

	c.writeMu.Lock()
	if c.ws == nil {
		err = errors.New("no socket (dropped)")
	} else {
		logf("-> %s", data)
		err = c.ws.WriteMessage(websocket.TextMessage, data)
	}
	c.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: write: %w", action, err)
	}

	select {
	case a := <-waiting:
		// The Go SDK ignores a response's Action, but the C++ and C# SDKs route results
		// by it, so an endpoint must echo it.
		if a.Action != action {
			c.fatal("%s answered with Action %q (the C++ and C# SDKs route answers by Action)", action, a.Action)
		}
		if a.StatusCode != http.StatusOK {
			if a.ErrorMessage == "" {
				c.fatal("%s failed with StatusCode %d and no ErrorMessage", action, a.StatusCode)
			}
			return &serviceError{status: a.StatusCode, message: a.ErrorMessage}
		}
		if result != nil {
			// Typed decoding, as the SDK unmarshals into model/response/*.go: a field of
			// the wrong JSON type fails the call.
			if err := json.Unmarshal(a.raw, result); err != nil {
				return fmt.Errorf("%s: answer does not decode as the SDK's type: %w", action, err)
			}
		}
		return nil
	case <-time.After(timeout):
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: no answer within %s", action, timeout)
	}
}

// nextPush waits for a push of the given Action; any other push is a deviation in this
// scenario, since the service has no reason to send it.
func (c *sdkConn) nextPush(action string, timeout time.Duration) answer {
	select {
	case p := <-c.pushes:
		if p.Action != action {
			c.fatal("expected a %s push, got %s", action, p.Action)
		}
		return p
	case <-time.After(timeout):
		c.fatal("no %s push within %s", action, timeout)
		return answer{}
	}
}

// drop ends the socket without a close frame, as server/internal/transport/websocket.go
// (closeConnection → gorilla's Conn.Close) does on Destroy: the service sees 1006.
func (c *sdkConn) drop() {
	c.ending.Store(true)
	c.writeMu.Lock()
	ws := c.ws
	c.ws = nil
	c.writeMu.Unlock()
	if ws != nil {
		_ = ws.Close()
	}
}

// dropAndReconnect loses the socket as a network cut would (no close frame), then dials
// the same URL again (same query, same IdempotencyToken) and does not send
// ActivateServerProcess again: server/internal/transport/websocket.go (readProcess →
// handleNetworkInterrupt → Reconnect). As there, writes wait on the write lock meanwhile.
func (c *sdkConn) dropAndReconnect(gap time.Duration) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.ws.Close()
	time.Sleep(gap)
	logf("dialling %s", c.url)
	ws, err := c.open()
	if err != nil {
		return err
	}
	c.ws = ws
	go c.read(ws)
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().UTC().Format("15:04:05.000")+" "+format+"\n", args...)
}
