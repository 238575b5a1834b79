using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using GameLiftSockets.Generator;
using GameLiftSockets.Protocol;

namespace GameLiftSockets.Tests
{
    /// <summary>The generated types (current with the schema, generic over new routes, frames and fields) and the JSON reader/writer.</summary>
    [Order(0)]
    public sealed class ProtocolTypes : Suite
    {
        private static string PackageDir { get { return Environment.GetEnvironmentVariable("CSHARP_CLIENT_DIR"); } }
        private static string SchemaPath { get { return Path.Combine(Environment.GetEnvironmentVariable("REPO_ROOT"), "protocol", "schema.json"); } }

        [Scenario("given protocol/schema.json, then Runtime/Protocol.g.cs is exactly what the generator makes of it (else: scripts/test-csharp.sh --generate)")]
        public Task GeneratedFileIsCurrent()
        {
            string generated = ProtocolGenerator.Generate(File.ReadAllText(SchemaPath));
            string committed = File.ReadAllText(Path.Combine(PackageDir, "Runtime", "Protocol.g.cs"));
            Check.True(generated == committed, "clients/csharp/Runtime/Protocol.g.cs is stale: run scripts/test-csharp.sh --generate and commit it");
            return Task.FromResult(0);
        }

        [Scenario("given a schema with a new def, field, route and frame (as connection details came), then they are generated with no change to the generator, and compile")]
        public Task GeneratorIsGeneric()
        {
            var schema = Json.ParseObject(File.ReadAllText(SchemaPath));
            var defs = schema.GetObject("$defs");
            defs["Endpoint"] = Json.ParseObject("{\"type\":\"object\",\"properties\":{\"ipAddress\":{\"type\":\"string\"},\"port\":{\"type\":\"integer\"}},\"required\":[\"ipAddress\",\"port\"]}");
            var seat = defs.GetObject("GameSession").GetObject("properties");
            seat["endpoints"] = Json.ParseObject("{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/Endpoint\"}}");
            seat["playerGatewayToken"] = Json.ParseObject("{\"type\":[\"string\",\"null\"]}");
            seat["expiresAt"] = Json.ParseObject("{\"type\":[\"integer\",\"null\"],\"format\":\"int64\"}");
            defs.GetObject("ClientFrame").GetArray("oneOf").Add(Json.ParseObject(
                "{\"properties\":{\"body\":{\"$ref\":\"#/$defs/EmptyBody\"},\"requestId\":{\"type\":[\"string\",\"null\"]},\"route\":{\"const\":\"describeRelays\",\"type\":\"string\"}},\"required\":[\"route\"],\"type\":\"object\"}"));
            defs.GetObject("ServerFrame").GetArray("oneOf").Add(Json.ParseObject(
                "{\"properties\":{\"type\":{\"const\":\"connection_details\",\"type\":\"string\"},\"gameSession\":{\"$ref\":\"#/$defs/GameSession\"},\"seq\":{\"$ref\":\"#/$defs/Seq\"}},\"required\":[\"type\",\"gameSession\",\"seq\"],\"type\":\"object\"}"));
            string code = ProtocolGenerator.Generate(Json.Serialize(schema));
            foreach (var expected in new[]
            {
                "public sealed partial class Endpoint : IJsonObject", "public List<Endpoint> Endpoints;", "public string PlayerGatewayToken;",
                "public long? ExpiresAt;", "public const string DescribeRelays = \"describeRelays\";",
                "public sealed partial class ConnectionDetailsFrame : ServerFrame", "case \"connection_details\": return ConnectionDetailsFrame.FromJson(json);",
            })
            {
                Check.True(code.Contains(expected), "the generated code has `" + expected + "`");
            }
            var dir = Environment.GetEnvironmentVariable("CSHARP_BUILD_DIR");
            File.WriteAllText(Path.Combine(dir, "Protocol.next.g.cs"), code);
            var runtime = Path.Combine(PackageDir, "Runtime");
            var args = string.Format("-langversion:7.2 -nologo -warnaserror -target:library -out:\"{0}\" \"{1}\" \"{2}\" \"{3}\" \"{4}\"", Path.Combine(dir, "next.dll"),
                Path.Combine(dir, "Protocol.next.g.cs"), Path.Combine(runtime, "Json.cs"), Path.Combine(runtime, "JsonRead.cs"), Path.Combine(runtime, "ServerFrame.cs"));
            using (var mcs = Process.Start(new ProcessStartInfo("mcs", args) { UseShellExecute = false, RedirectStandardOutput = true }))
            {
                string output = mcs.StandardOutput.ReadToEnd();
                mcs.WaitForExit();
                Check.True(mcs.ExitCode == 0, "the regenerated types compile:\n" + output);
            }
            return Task.FromResult(0);
        }

        [Scenario("given server frames, then each parses to its class with typed fields, and a field this version does not name is kept and written back")]
        public Task FramesParseAndKeepUnknownFields()
        {
            var placement = ServerFrame.Parse(Json.ParseObject(
                "{\"type\":\"placement\",\"placementId\":\"c29169da\",\"status\":\"FULFILLED\",\"gameSession\":{\"gameSessionArn\":\"arn:g\",\"ipAddress\":\"127.0.0.1\",\"dnsName\":\"localhost\",\"port\":7777,\"region\":\"local\",\"playerSessionId\":\"psess-1\",\"endpoints\":[{\"ipAddress\":\"10.0.0.1\",\"port\":7000}]},\"seq\":179532360012300}")) as PlacementFrame;
            Check.True(placement != null, "a PlacementFrame");
            Check.Equal(PlacementStatus.Fulfilled, placement.Status, "status");
            Check.Equal(7777L, placement.GameSession.Port, "port");
            Check.Equal(179532360012300L, placement.Seq, "seq, exact");
            Check.Equal(1, placement.GameSession.Raw.GetArray("endpoints").Count, "a field the schema does not have yet is in Raw");
            Check.True(Json.Serialize(placement.ToJson()).Contains("\"endpoints\":[{\"ipAddress\":\"10.0.0.1\",\"port\":7000}]"), "and written back");

            var party = ServerFrame.Parse(Json.ParseObject(
                "{\"type\":\"party\",\"party\":{\"partyId\":\"p1\",\"leaderId\":\"ada\",\"maxSize\":4,\"members\":[{\"playerId\":\"ada\",\"presence\":\"online\",\"joinedAt\":5}],\"version\":3},\"change\":\"joined\",\"playerId\":\"ada\",\"seq\":9}")) as PartyFrame;
            Check.Equal("ada", party.Party.Members[0].PlayerId, "a member");
            Check.Equal(3L, party.Party.Version, "the version");
            Check.Equal(ChangeKind.Joined, party.Change, "the change");

            var odd = ServerFrame.Parse(Json.ParseObject("{\"type\":\"message\",\"messageId\":7,\"seq\":\"x\"}")) as MessageFrame;
            Check.True(odd != null && odd.MessageId == null && odd.Seq == null, "mistyped fields read as null, not an exception");

            Check.Equal("{}", Json.Serialize(new CancelPlacementBody()), "a null optional field is left out");
            Check.Equal("{\"accept\":true,\"ticketId\":\"mm-1\"}", Json.Serialize(new AcceptMatchRequestBody { TicketId = "mm-1", Accept = true }), "required fields written");
            return Task.FromResult(0);
        }

        [Scenario("given error frames, then each code's fields read typed from the ErrorFrame")]
        public Task ErrorFramesReadTyped()
        {
            var limited = ServerFrame.Parse(Json.ParseObject(
                "{\"type\":\"error\",\"route\":\"sendMessage\",\"requestId\":\"r1\",\"code\":\"rate_limited\",\"message\":\"over the limit\",\"retryAfterMs\":45000}")) as ErrorFrame;
            Check.Equal(ErrorCode.RateLimited, limited.Code, "the code");
            Check.Equal(45000L, limited.RetryAfterMs, "retryAfterMs, typed");
            var conflict = ServerFrame.Parse(Json.ParseObject(
                "{\"type\":\"error\",\"code\":\"conflict\",\"message\":\"bob has a live ticket\",\"ticketId\":\"mm-1\",\"playerId\":\"bob\"}")) as ErrorFrame;
            Check.Equal("mm-1", conflict.TicketId, "the ticket");
            Check.Equal("bob", conflict.PlayerId, "whose");
            Check.True(conflict.RetryAfterMs == null && conflict.PlacementId == null, "another code's fields are null");
            return Task.FromResult(0);
        }

        [Scenario("given resume acks, then the cursor, placement and ticket read through the generated types, a null cursor apart from 0")]
        public Task ResumeAckReadsTyped()
        {
            var empty = new ResumeAck(Json.ParseObject("{\"type\":\"ack\",\"route\":\"resume\",\"cursor\":null,\"placement\":null,\"matchmaking\":null}"));
            Check.True(empty.Cursor == null, "a null cursor is null");
            Check.True(empty.Placement == null && empty.Matchmaking == null, "nothing pending");
            var busy = new ResumeAck(Json.ParseObject("{\"type\":\"ack\",\"route\":\"resume\",\"cursor\":0,\"placement\":{\"placementId\":\"p-1\",\"status\":\"PENDING\"},\"matchmaking\":{\"ticketId\":\"mm-1\"}}"));
            Check.Equal(0L, busy.Cursor, "a cursor of 0 is 0");
            Check.Equal("p-1", busy.Placement.PlacementId, "the pending placement, a PlacementAck");
            Check.Equal(PlacementStatus.Pending, busy.Placement.Status, "its status");
            Check.Equal("mm-1", busy.Matchmaking.TicketId, "the live ticket, a TicketAck");
            return Task.FromResult(0);
        }

        [Scenario("given JSON text, then the reader keeps integers exact, decodes escapes, and says where bad text is wrong")]
        public Task JsonReader()
        {
            var value = Json.ParseObject("{\"seq\":9007199254740991,\"x\":-2.5e1,\"s\":\"caf\\u00e9 \\\"q\\\"\\n\",\"a\":[true,false,null,{}],\"o\":{\"k\":[]}}");
            Check.Equal(9007199254740991L, value.GetLong("seq"), "2^53 - 1, exact");
            Check.Equal(-25.0, value.GetDouble("x"), "an exponent");
            Check.Equal("café \"q\"\n", value.GetString("s"), "escapes");
            Check.Equal(4, value.GetArray("a").Count, "an array");
            foreach (var bad in new[] { "{\"a\":}", "{\"a\":1,}", "[1 2]", "\"open", "{\"a\":1} x", "01", "{'a':1}", "" })
            {
                try
                {
                    Json.Parse(bad);
                    throw new CheckFailed("`" + bad + "` should not parse");
                }
                catch (JsonException error)
                {
                    Check.True(error.Message.Contains("at character"), "`" + bad + "`: the error says where: " + error.Message);
                }
            }
            try
            {
                Json.Parse(new string('[', 1000) + new string(']', 1000));
                throw new CheckFailed("deep nesting should be refused");
            }
            catch (JsonException error)
            {
                Check.True(error.Message.Contains("deeper"), error.Message);
            }
            return Task.FromResult(0);
        }

        [Scenario("given values to write, then the writer escapes control characters and writes numbers the same in every culture")]
        public Task JsonWriter()
        {
            var culture = Thread.CurrentThread.CurrentCulture;
            Thread.CurrentThread.CurrentCulture = new CultureInfo("de-DE"); // a decimal comma
            try
            {
                var frame = new JsonObject { { "route", "sendMessage" }, { "body", new Dictionary<string, object> { { "n", 2.5 }, { "big", 9007199254740991L }, { "t", "a\u0001\tb" }, { "l", new[] { 1, 2 } } } } };
                Check.Equal("{\"route\":\"sendMessage\",\"body\":{\"n\":2.5,\"big\":9007199254740991,\"t\":\"a\\u0001\\tb\",\"l\":[1,2]}}", Json.Serialize(frame), "the text");
                Check.Equal(frame.ToString(), Json.Serialize(Json.Parse(Json.Serialize(frame))), "a round trip");
            }
            finally
            {
                Thread.CurrentThread.CurrentCulture = culture;
            }
            return Task.FromResult(0);
        }
    }
}
