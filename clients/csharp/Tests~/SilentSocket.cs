using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.WebSockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace GameLiftSockets.Tests
{
    /// <summary>
    /// A raw ClientWebSocket that sends `resume` and nothing after it (client.test.mjs's
    /// silentSocket): the comparator of the timed tests, since the client library follows the
    /// server's keepAlive whatever its options say and cannot be made silent. It records the
    /// frames it receives and the close status the server closes it with.
    /// </summary>
    public sealed class SilentSocket : IDisposable
    {
        private readonly ClientWebSocket socket = new ClientWebSocket();
        private readonly List<JsonObject> frames = new List<JsonObject>();
        private int? closedWith;
        private Task receiving;

        private SilentSocket() { }

        /// <summary>Opens a socket for <paramref name="player"/> with a fresh token and waits for its resume ack.</summary>
        public static async Task<SilentSocket> Open(LocalStack stack, string player)
        {
            var silent = new SilentSocket();
            var url = new Uri(stack.Url + "?token=" + Uri.EscapeDataString(LocalStack.MintToken(player)));
            await silent.socket.ConnectAsync(url, CancellationToken.None);
            silent.receiving = silent.Receive();
            var resume = Encoding.UTF8.GetBytes("{\"route\":\"resume\",\"requestId\":\"r\"}");
            await silent.socket.SendAsync(new ArraySegment<byte>(resume), WebSocketMessageType.Text, true, CancellationToken.None);
            await Check.Until(() => silent.Frames.Any(f => f.GetString("type") == "ack"), player + "'s resume ack", 5000);
            return silent;
        }

        /// <summary>The frames received, in order.</summary>
        public List<JsonObject> Frames { get { lock (frames) return frames.ToList(); } }

        /// <summary>The status of the server's close frame (1006 when the socket ended without one); null while open.</summary>
        public int? ClosedWith { get { lock (frames) return closedWith; } }

        private async Task Receive()
        {
            var buffer = new byte[8192];
            var message = new MemoryStream();
            try
            {
                while (true)
                {
                    var result = await socket.ReceiveAsync(new ArraySegment<byte>(buffer), CancellationToken.None);
                    if (result.MessageType == WebSocketMessageType.Close)
                    {
                        lock (frames) closedWith = result.CloseStatus.HasValue ? (int)result.CloseStatus.Value : 1005;
                        return;
                    }
                    message.Write(buffer, 0, result.Count);
                    if (!result.EndOfMessage) continue;
                    var frame = Json.Parse(Encoding.UTF8.GetString(message.ToArray())) as JsonObject;
                    message.SetLength(0);
                    if (frame != null) lock (frames) frames.Add(frame);
                }
            }
            catch (Exception)
            {
                lock (frames) if (closedWith == null) closedWith = 1006;
            }
        }

        public void Dispose()
        {
            socket.Abort();
            if (receiving != null) receiving.Wait(1000);
            socket.Dispose();
        }
    }
}
