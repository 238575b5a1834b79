using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using GameLiftSockets;
using GameLiftSockets.Protocol;
using UnityEngine;

/// <summary>
/// Connects (resuming after every drop), requests a game placement and logs every push. Add it
/// to a GameObject, set the URL and, for a development stack in header mode, a player id; for a
/// JWT stack, replace FetchToken with a call to your token service.
/// </summary>
public sealed class GameSocketsExample : MonoBehaviour
{
    [SerializeField] private string url = "ws://127.0.0.1:3001/Development";
    [Tooltip("Header-mode development stacks only; leave empty to use FetchToken")]
    [SerializeField] private string playerId = "alice";

    private GameSocketsClient client;
    private Task running;
    private bool reported;

    private void Start()
    {
        client = new GameSocketsClient(new ClientOptions
        {
            Url = url,
            PlayerId = string.IsNullOrEmpty(playerId) ? null : playerId,
            Token = string.IsNullOrEmpty(playerId) ? FetchToken : (Func<Task<string>>)null,
            OnHandlerError = Debug.LogException,
        });
        client.Resumed += ack => Debug.Log("live as " + ack.Fields.GetString("playerId") + (ack.Resumed ? " (session resumed)" : ""));
        client.Message += m => Debug.Log(m.From + ": " + Json.Serialize(m.Message));
        client.Placement += p => Debug.Log("placement " + p.Status + (p.GameSession != null ? " at " + p.GameSession.IpAddress + ":" + p.GameSession.Port : ""));
        client.Frame += frame => Debug.Log("push " + frame);
        client.StateChanged += change => Debug.Log("connection " + change.State);
        client.Closed += closed => Debug.LogWarning("stopped for good: " + closed); // e.g. session_replaced
        // Kept as a Task rather than an async-void method: a failure is logged from Update.
        running = ConnectAndPlace();
    }

    private async Task ConnectAndPlace()
    {
        await client.ConnectAsync();
        var ack = await client.RequestPlacementAsync(new PlacementRequestBody { Latencies = new Dictionary<string, double> { { "us-east-1", 40 } } });
        Debug.Log("placement " + ack.PlacementId + " is " + ack.Status + "; the result will be pushed");
    }

    private void Update()
    {
        // Events wait in a queue: raise them here, on the main thread.
        client.DispatchEvents();
        if (running != null && running.IsFaulted && !reported)
        {
            reported = true;
            Debug.LogException(running.Exception.InnerException ?? running.Exception);
        }
    }

    private void OnDestroy()
    {
        if (client != null) client.Close();
    }

    private static Task<string> FetchToken()
    {
        // Your token service here (UnityWebRequest is fine: the client calls this on the main thread).
        return Task.FromResult("a JWT from your identity provider");
    }
}
