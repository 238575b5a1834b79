// Command go-conformance is a small game server that speaks GameLift server SDK 5 on the
// wire as the official Go SDK 5.6.0 does, and walks one game through the local stack's
// SDK 5 endpoint, failing on the first answer the official SDK would not accept.
//
// stdout carries one machine-readable line per milestone (`game-session <arn>`,
// `accepted <id>`, `done`, ...); stderr logs every frame. See README.md.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"time"
)

// server/validation.go's patterns: the SDK refuses, before sending, ids that fail them.
var (
	guidPattern      = regexp.MustCompile(`^[a-zA-Z0-9.-]+$`)
	computeIDPattern = regexp.MustCompile(`^[a-zA-Z0-9\-]+(\/[a-zA-Z0-9\-]+)?$`)
	arnPattern       = regexp.MustCompile(`^[a-zA-Z0-9:/-]+$`)
)

// model/message/create_game_session.go (CreateGameSessionMessage).
type createGameSession struct {
	GameSessionID             string            `json:"GameSessionId"`
	GameSessionName           string            `json:"GameSessionName"`
	GameSessionData           string            `json:"GameSessionData"`
	MatchmakerData            string            `json:"MatchmakerData"`
	MaximumPlayerSessionCount int               `json:"MaximumPlayerSessionCount"`
	Port                      int               `json:"Port"`
	IPAddress                 string            `json:"IpAddress"`
	DNSName                   string            `json:"DnsName"`
	GameProperties            map[string]string `json:"GameProperties"`
}

// model/player.go (PlayerSession).
type playerSession struct {
	PlayerID        string `json:"PlayerId"`
	PlayerSessionID string `json:"PlayerSessionId"`
	GameSessionID   string `json:"GameSessionId"`
	FleetID         string `json:"FleetId"`
	PlayerData      string `json:"PlayerData"`
	IPAddress       string `json:"IpAddress"`
	Port            int    `json:"Port"`
	CreationTime    int64  `json:"CreationTime"`
	TerminationTime int64  `json:"TerminationTime"`
	DNSName         string `json:"DnsName"`
	Status          string `json:"Status"`
}

// model/result/describe_player_session.go (DescribePlayerSessionsResult).
type describeResult struct {
	NextToken      string          `json:"NextToken"`
	PlayerSessions []playerSession `json:"PlayerSessions"`
}

// model/result/get_compute_certificate.go (GetComputeCertificateResult).
type computeCertificate struct {
	CertificatePath string `json:"CertificatePath"`
	ComputeName     string `json:"ComputeName"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "DEVIATION: "+format+"\n", args...)
	os.Exit(1)
}

// milestone tells the harness where the game is (stdout, one line each).
func milestone(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}

func main() {
	port := flag.Int("port", 7777, "the port players connect to (ActivateServerProcess Port)")
	logPath := flag.String("log-path", "/local/game/logs/server.log", "ActivateServerProcess LogPaths")
	players := flag.Int("players", 1, "RESERVED player sessions to wait for, accept and remove")
	hold := flag.Bool("hold-activation", false, "wait for a line on stdin before ActivateGameSession")
	dropMidGame := flag.Bool("drop-mid-game", false, "drop the socket after accepting, reconnect and carry on")
	wait := flag.Duration("wait", 60*time.Second, "how long to wait for the game session, then for its players")
	flag.Parse()

	e, err := readEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-conformance:", err)
		os.Exit(2)
	}
	u, err := connectURL(e)
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-conformance:", err)
		os.Exit(2)
	}
	// InitSDK: connecting is all it does (server/gamelift_server_api.go, InitSDK).
	c, err := dial(u, fail)
	if err != nil {
		fail("InitSDK: %v", err)
	}
	milestone("connected")

	// ProcessReady: ActivateServerProcess (model/request/activate_server_process.go), then
	// a heartbeat at once and one every interval (server/server_state.go, startHealthCheck).
	must(c.call(activateServerProcess{
		message:     newMessage("ActivateServerProcess"),
		SdkVersion:  sdkVersion,
		SdkLanguage: sdkLanguage,
		// server/server_state.go (processReady): the tool's name and version when set.
		SdkToolName:    os.Getenv("GAMELIFT_SDK_TOOL_NAME"),
		SdkToolVersion: os.Getenv("GAMELIFT_SDK_TOOL_VERSION"),
		Port:           *port,
		LogPaths:       []string{*logPath},
	}, activateProcessTimeout, nil))
	must(heartbeat(c))
	milestone("process-ready")
	go heartbeats(c)

	// OnStartGameSession.
	push := c.nextPush("CreateGameSession", *wait)
	var game createGameSession
	decode(push.raw, &game, "CreateGameSession")
	arn := game.GameSessionID
	if !arnPattern.MatchString(arn) {
		fail("CreateGameSession GameSessionId %q fails the SDK's pattern %s", arn, arnPattern)
	}
	if game.Port != *port {
		fail("CreateGameSession Port %d, the process activated with %d", game.Port, *port)
	}
	if game.MaximumPlayerSessionCount < *players {
		fail("CreateGameSession MaximumPlayerSessionCount %d < %d players", game.MaximumPlayerSessionCount, *players)
	}
	milestone("game-session %s", arn)
	if *hold {
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			fail("waiting on stdin before ActivateGameSession: %v", err)
		}
	}
	must(c.call(activateGameSession{newMessage("ActivateGameSession"), arn}, serviceCallTimeout, nil))
	milestone("game-session-active %s", arn)

	// The players the service reserved seats for, found as a game server would without a
	// side channel: DescribePlayerSessions with the RESERVED filter, polled.
	reserved := waitForReserved(c, e, arn, *players, *wait)
	var ids []string
	for _, ps := range reserved {
		must(c.call(playerSessionRequest{newMessage("AcceptPlayerSession"), arn, ps.PlayerSessionID}, serviceCallTimeout, nil))
		milestone("accepted %s", ps.PlayerSessionID)
		ids = append(ids, ps.PlayerSessionID)
	}

	if *dropMidGame {
		// A network loss mid-game: the socket ends with no close frame, the SDK dials the
		// same URL again and does not activate again (server/internal/transport/websocket.go,
		// readProcess → handleNetworkInterrupt → Reconnect). The service must keep the game.
		milestone("dropped")
		if err := c.dropAndReconnect(500 * time.Millisecond); err != nil {
			fail("reconnecting with the same URL: %v", err)
		}
		must(heartbeat(c))
		milestone("reconnected")
	}

	// A seat is accepted once: the second time is refused with 400 (BadRequestException
	// in common/errors.go) and an ErrorMessage.
	err = c.call(playerSessionRequest{newMessage("AcceptPlayerSession"), arn, ids[0]}, serviceCallTimeout, nil)
	var refused *serviceError
	if !errors.As(err, &refused) || refused.status != 400 {
		fail("AcceptPlayerSession of an ACTIVE player session: want a 400 answer, got %v", err)
	}
	milestone("re-accept-refused %s", refused.message)

	expectStatuses(c, e, arn, ids, "ACTIVE")
	pageThrough(c, arn, ids)

	for _, id := range ids {
		must(c.call(playerSessionRequest{newMessage("RemovePlayerSession"), arn, id}, serviceCallTimeout, nil))
		milestone("removed %s", id)
	}
	expectStatuses(c, e, arn, ids, "COMPLETED")

	var cert computeCertificate
	must(c.call(bare{newMessage("GetComputeCertificate")}, serviceCallTimeout, &cert))
	if cert.CertificatePath == "" || cert.ComputeName == "" {
		fail("GetComputeCertificate: CertificatePath %q and ComputeName %q must both be set", cert.CertificatePath, cert.ComputeName)
	}
	milestone("compute-certificate %s", cert.CertificatePath)

	// No fleet role exists locally: a refusal the SDK surfaces. RoleSessionName defaults
	// to <fleetId>-<hostId> (server/server_state.go, getFleetRoleCredentials).
	err = c.call(getFleetRoleCredentials{
		message:         newMessage("GetFleetRoleCredentials"),
		RoleArn:         "arn:aws:iam::123456789012:role/game-server",
		RoleSessionName: truncate(e.fleetID+"-"+e.hostID, 64),
	}, serviceCallTimeout, nil)
	if !errors.As(err, &refused) || refused.status < 400 || refused.status > 499 {
		fail("GetFleetRoleCredentials: want a 4xx refusal, got %v", err)
	}
	milestone("fleet-role-refused %d", refused.status)

	// Nothing unasked arrived meanwhile (an UpdateGameSession or TerminateProcess here
	// would mean the service lost track of this game).
	select {
	case p := <-c.pushes:
		fail("unexpected %s push mid-game: %s", p.Action, p.raw)
	default:
	}

	// ProcessEnding sends TerminateServerProcess; Destroy closes with no close frame.
	c.ending.Store(true)
	must(c.call(bare{newMessage("TerminateServerProcess")}, serviceCallTimeout, nil))
	milestone("process-ending")
	c.drop()
	milestone("done")
}

func must(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func heartbeat(c *sdkConn) error {
	return c.call(heartbeatServerProcess{newMessage("HeartbeatServerProcess"), true}, serviceCallTimeout, nil)
}

// heartbeats mirrors server/server_state.go (startHealthCheck, getNextHealthCheckIntervalSeconds):
// every HEALTHCHECK_INTERVAL (60s) minus a jitter in [-HEALTHCHECK_MAX_JITTER, +HEALTHCHECK_MAX_JITTER)
// (10s), both Go durations (common/consts.go).
func heartbeats(c *sdkConn) {
	interval := envDuration("HEALTHCHECK_INTERVAL", 60*time.Second)
	jitter := envDuration("HEALTHCHECK_MAX_JITTER", 10*time.Second)
	for {
		time.Sleep(interval - (2*time.Duration(rand.Int64N(int64(jitter))) - jitter))
		if c.ending.Load() {
			return
		}
		// A refusal is a finding; a lost answer (the socket dropped under it) is only
		// logged, as server/server_state.go (heartbeatServerProcess) does.
		var refused *serviceError
		if err := heartbeat(c); errors.As(err, &refused) && !c.ending.Load() {
			fail("%v", err)
		} else if err != nil {
			logf("heartbeat not answered: %v", err)
		}
	}
}

func envDuration(name string, fallback time.Duration) time.Duration {
	d, err := time.ParseDuration(os.Getenv(name))
	if err != nil || d <= 0 {
		return fallback
	}
	return d
}

func decode(raw []byte, into any, what string) {
	if err := json.Unmarshal(raw, into); err != nil {
		fail("%s does not decode as the SDK's type: %v: %s", what, err, raw)
	}
}

func describe(c *sdkConn, req describePlayerSessions) describeResult {
	req.message = newMessage("DescribePlayerSessions")
	var r describeResult
	must(c.call(req, serviceCallTimeout, &r))
	return r
}

func waitForReserved(c *sdkConn, e env, arn string, players int, wait time.Duration) []playerSession {
	deadline := time.Now().Add(wait)
	for {
		r := describe(c, describePlayerSessions{GameSessionID: arn, PlayerSessionStatusFilter: "RESERVED"})
		for _, ps := range r.PlayerSessions {
			checkPlayerSession(ps, e, arn, "RESERVED")
		}
		if len(r.PlayerSessions) >= players {
			return r.PlayerSessions[:players]
		}
		if time.Now().After(deadline) {
			fail("%d RESERVED player session(s) after %s, want %d", len(r.PlayerSessions), wait, players)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func checkPlayerSession(ps playerSession, e env, arn, status string) {
	if !guidPattern.MatchString(ps.PlayerSessionID) {
		fail("PlayerSessionId %q fails the SDK's pattern %s", ps.PlayerSessionID, guidPattern)
	}
	if ps.GameSessionID != arn || ps.FleetID != e.fleetID || ps.Status != status {
		fail("player session %+v: want GameSessionId %s, FleetId %s, Status %s", ps, arn, e.fleetID, status)
	}
}

// expectStatuses checks ids have status, both unfiltered and with the status filter.
func expectStatuses(c *sdkConn, e env, arn string, ids []string, status string) {
	all := describe(c, describePlayerSessions{GameSessionID: arn})
	filtered := describe(c, describePlayerSessions{GameSessionID: arn, PlayerSessionStatusFilter: status})
	for _, id := range ids {
		for name, r := range map[string]describeResult{"unfiltered": all, status: filtered} {
			i := slices.IndexFunc(r.PlayerSessions, func(ps playerSession) bool { return ps.PlayerSessionID == id })
			if i < 0 {
				fail("DescribePlayerSessions (%s) lacks %s: %+v", name, id, r.PlayerSessions)
			}
			checkPlayerSession(r.PlayerSessions[i], e, arn, status)
		}
	}
	milestone("described %s %d", status, len(ids))
}

// pageThrough reads the game's player sessions one per page with Limit and NextToken and
// checks the pages add up to the unpaged answer.
func pageThrough(c *sdkConn, arn string, ids []string) {
	whole := describe(c, describePlayerSessions{GameSessionID: arn}).PlayerSessions
	var paged []string
	token := ""
	for range len(whole) + 2 {
		r := describe(c, describePlayerSessions{GameSessionID: arn, Limit: 1, NextToken: token})
		if len(r.PlayerSessions) > 1 {
			fail("DescribePlayerSessions Limit 1 answered %d player sessions", len(r.PlayerSessions))
		}
		for _, ps := range r.PlayerSessions {
			paged = append(paged, ps.PlayerSessionID)
		}
		token = r.NextToken
		if token == "" {
			break
		}
	}
	if token != "" {
		fail("DescribePlayerSessions paging did not end after %d pages", len(whole)+2)
	}
	var want []string
	for _, ps := range whole {
		want = append(want, ps.PlayerSessionID)
	}
	slices.Sort(want)
	slices.Sort(paged)
	if !slices.Equal(want, paged) {
		fail("Limit 1 pages gave %v, the unpaged answer %v", paged, want)
	}
	for _, id := range ids {
		if !slices.Contains(paged, id) {
			fail("the pages lack %s", id)
		}
	}
	milestone("paged %d", len(paged))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
