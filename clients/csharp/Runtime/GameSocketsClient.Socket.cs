using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace GameLiftSockets
{
    // The socket's side of a connection: the URL and token, opening, the read loop and the
    // ordered writer. Socket I/O runs outside `gate`; what it learns is handed in under it.
    public sealed partial class GameSocketsClient
    {
        private static readonly TimeSpan CloseGrace = TimeSpan.FromSeconds(2);

        private sealed class Conn
        {
            public IGameSocket Socket;
            public string ResumeId;
            public bool Opened, Live, Closing, Ended;
            /// <summary>Being replaced by our own rollover: its `session_replaced` and close are expected.</summary>
            public bool Retiring;
            public Timer ResumeTimer, AbortTimer;
            public readonly ConcurrentQueue<Outgoing> Outbox = new ConcurrentQueue<Outgoing>();
            public readonly SemaphoreSlim Ready = new SemaphoreSlim(0);
            public readonly CancellationTokenSource Cancel = new CancellationTokenSource();
        }

        private sealed class Outgoing
        {
            public string Text;
            public int CloseCode;
            public string CloseReason;
        }

        private async Task OpenAsync(bool rollover)
        {
            // A reconnect timer may fire once more after Close: ask no token then.
            lock (gate) if (stopped) return;
            Uri uri;
            var headers = new List<KeyValuePair<string, string>>();
            try
            {
                uri = await ConnectUri(headers).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                Locked(() =>
                {
                    if (rollover) RolloverFailed();
                    else Stop(StopReason.TokenFailed, error.Message);
                });
                return;
            }
            Conn conn = null;
            Locked(() =>
            {
                if (stopped) return;
                IGameSocket socket;
                try
                {
                    socket = socketFactory();
                }
                catch (Exception)
                {
                    if (rollover) RolloverFailed();
                    else ScheduleReconnect();
                    return;
                }
                conn = new Conn { Socket = socket, ResumeId = "resume-" + (++nextId) };
                if (rollover) candidate = conn;
                else current = conn;
            });
            if (conn != null) await RunAsync(conn, uri, headers).ConfigureAwait(false);
        }

        private async Task<Uri> ConnectUri(List<KeyValuePair<string, string>> headers)
        {
            var builder = new UriBuilder(options.Url);
            string query = builder.Query.Length > 1 ? builder.Query.Substring(1) + "&" : "";
            if (options.Token != null)
            {
                string token = await FreshToken().ConfigureAwait(false);
                if (string.IsNullOrEmpty(token)) throw new InvalidOperationException("the token provider returned no token");
                if (options.TokenInHeader) headers.Add(new KeyValuePair<string, string>("Authorization", "Bearer " + token));
                else query += "token=" + Uri.EscapeDataString(token);
            }
            else
            {
                query += "playerId=" + Uri.EscapeDataString(options.PlayerId);
            }
            builder.Query = query.TrimEnd('&');
            return builder.Uri;
        }

        /// <summary>Calls the token provider on the context the client was made on (Unity's main thread), if any.</summary>
        private Task<string> FreshToken()
        {
            if (tokenContext == null) return options.Token() ?? Faulted<string>(new InvalidOperationException("the token provider returned a null task"));
            var token = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
            tokenContext.Post(_ =>
            {
                try
                {
                    var task = options.Token();
                    if (task == null) throw new InvalidOperationException("the token provider returned a null task");
                    task.ContinueWith(t =>
                    {
                        if (t.IsFaulted) token.TrySetException(t.Exception.InnerException ?? t.Exception);
                        else if (t.IsCanceled) token.TrySetCanceled();
                        else token.TrySetResult(t.Result);
                    }, TaskContinuationOptions.ExecuteSynchronously);
                }
                catch (Exception error)
                {
                    token.TrySetException(error);
                }
            }, null);
            return token.Task;
        }

        private async Task RunAsync(Conn conn, Uri uri, IList<KeyValuePair<string, string>> headers)
        {
            try
            {
                await conn.Socket.ConnectAsync(uri, headers, conn.Cancel.Token).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                var refused = error as SocketRefusedException;
                Locked(() => OnEnded(conn, refused == null ? null : refused.Status));
                return;
            }
            Locked(() => OnOpen(conn));
            Forget(WriteLoop(conn));
            while (true)
            {
                string text = await conn.Socket.ReceiveAsync(conn.Cancel.Token).ConfigureAwait(false);
                if (text == null) break;
                Locked(() => OnFrame(conn, text));
            }
            Locked(() => OnEnded(conn, null));
        }

        /// <summary>Sends the connection's frames one at a time, in order; a failed send drops the socket (the reader then ends).</summary>
        private async Task WriteLoop(Conn conn)
        {
            try
            {
                while (true)
                {
                    await conn.Ready.WaitAsync(conn.Cancel.Token).ConfigureAwait(false);
                    Outgoing item;
                    if (!conn.Outbox.TryDequeue(out item)) continue;
                    if (item.Text != null)
                    {
                        await conn.Socket.SendAsync(item.Text, conn.Cancel.Token).ConfigureAwait(false);
                        continue;
                    }
                    await conn.Socket.CloseAsync(item.CloseCode, item.CloseReason, conn.Cancel.Token).ConfigureAwait(false);
                    return;
                }
            }
            catch (Exception)
            {
                conn.Socket.Abort();
            }
        }

        private bool Send(Conn conn, JsonObject frame)
        {
            if (conn.Closing || conn.Ended) return false;
            conn.Outbox.Enqueue(new Outgoing { Text = Json.Serialize(frame) });
            conn.Ready.Release();
            return true;
        }

        /// <summary>Starts a clean close; a peer that does not finish it within CloseGrace is dropped.</summary>
        private void CloseConn(Conn conn, int code, string reason)
        {
            if (conn.Closing || conn.Ended) return;
            conn.Closing = true;
            if (!conn.Opened)
            {
                conn.Cancel.Cancel();
                conn.Socket.Abort();
                return;
            }
            conn.Outbox.Enqueue(new Outgoing { CloseCode = code, CloseReason = reason });
            conn.Ready.Release();
            conn.AbortTimer = new Timer(_ => conn.Socket.Abort(), null, CloseGrace, Timeout.InfiniteTimeSpan);
        }
    }
}
