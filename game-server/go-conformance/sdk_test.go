package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// testConn is an sdkConn with no socket whose fatal panics with the message, so a test
// can see which frames the official SDK's readHandler would reject.
func testConn() *sdkConn {
	return &sdkConn{
		pending: map[string]chan answer{},
		pushes:  make(chan answer, 4),
		fatal: func(format string, args ...any) {
			panic(fmt.Sprintf(format, args...))
		},
	}
}

func (c *sdkConn) wait(id string) chan answer {
	ch := make(chan answer, 1)
	c.pending[id] = ch
	return ch
}

// handled runs handle and returns the deviation it reported, if any.
func handled(c *sdkConn, frame string) (deviation string) {
	defer func() {
		if r := recover(); r != nil {
			deviation = fmt.Sprint(r)
		}
	}()
	c.handle([]byte(frame))
	return ""
}

func TestGivenAnAnswerWithStatus200WhenReadThenItReachesItsRequest(t *testing.T) {
	c := testConn()
	waiting := c.wait("r1")
	if d := handled(c, `{"Action":"HeartbeatServerProcess","RequestId":"r1","StatusCode":200}`); d != "" {
		t.Fatal(d)
	}
	if a := <-waiting; a.StatusCode != 200 {
		t.Fatalf("got %+v", a)
	}
}

func TestGivenAFrameWithARequestIdAndNoStatusWhenReadThenItIsAnErrorNotAPush(t *testing.T) {
	c := testConn()
	waiting := c.wait("r1")
	// Action names a push, but a RequestId without StatusCode 200 makes it an error answer.
	if d := handled(c, `{"Action":"CreateGameSession","RequestId":"r1"}`); d != "" {
		t.Fatal(d)
	}
	if a := <-waiting; a.StatusCode != 0 || len(c.pushes) != 0 {
		t.Fatalf("got %+v, %d pushes", a, len(c.pushes))
	}
}

func TestGivenAPushWithARequestIdNobodyWaitsForWhenReadThenItIsADeviation(t *testing.T) {
	d := handled(testConn(), `{"Action":"TerminateProcess","RequestId":"push-1","TerminationTime":1}`)
	if !strings.Contains(d, "would drop it") {
		t.Fatalf("deviation %q", d)
	}
}

func TestGivenPushesWithoutRequestIdOrWithStatus200WhenReadThenTheyArePushes(t *testing.T) {
	c := testConn()
	for _, frame := range []string{
		`{"Action":"CreateGameSession","GameSessionId":"arn:aws:gamelift:us-west-2::gamesession/f/g"}`,
		`{"Action":"TerminateProcess","RequestId":"push-1","StatusCode":200,"TerminationTime":1}`,
	} {
		if d := handled(c, frame); d != "" {
			t.Fatal(d)
		}
	}
	if len(c.pushes) != 2 {
		t.Fatalf("%d pushes", len(c.pushes))
	}
}

func TestGivenTheEnvironmentWhenTheUrlIsBuiltThenTheQueryIsTheSdksSortedAndEscaped(t *testing.T) {
	raw, err := connectURL(env{
		websocketURL: "ws://127.0.0.1:9000",
		processID:    "proc 1",
		hostID:       "host-1",
		fleetID:      "fleet-1",
		authToken:    "tok+/=",
	})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(raw)
	token := u.Query().Get("IdempotencyToken")
	want := "Authorization=tok%2B%2F%3D&ComputeId=host-1&FleetId=fleet-1&IdempotencyToken=" + token +
		"&pID=proc+1&sdkLanguage=Go&sdkVersion=5.6.0"
	if u.RawQuery != want || len(token) != 36 {
		t.Fatalf("query %s, want %s", u.RawQuery, want)
	}
}
