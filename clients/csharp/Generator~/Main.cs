using System;
using System.IO;

namespace GameLiftSockets.Generator
{
    /// <summary>
    /// <c>mono generate-protocol.exe SCHEMA OUT [--check]</c>: writes OUT from SCHEMA, or with
    /// --check exits 1 when OUT is not what SCHEMA generates.
    /// </summary>
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length < 2)
            {
                Console.Error.WriteLine("usage: generate-protocol.exe <protocol/schema.json> <Runtime/Protocol.g.cs> [--check]");
                return 2;
            }
            string generated = ProtocolGenerator.Generate(File.ReadAllText(args[0]));
            if (args.Length > 2 && args[2] == "--check")
            {
                string current = File.Exists(args[1]) ? File.ReadAllText(args[1]) : "";
                if (current != generated)
                {
                    Console.Error.WriteLine(args[1] + " is not what " + args[0] + " generates: run scripts/test-csharp.sh --generate and commit it");
                    return 1;
                }
                Console.WriteLine(args[1] + " is current with " + args[0]);
                return 0;
            }
            File.WriteAllText(args[1], generated);
            Console.WriteLine("wrote " + args[1]);
            return 0;
        }
    }
}
