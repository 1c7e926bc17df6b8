#!/usr/bin/env python3
"""A server whose every answer waits: for Scripts/bench.sh's scale run, where 10,000 calls are in flight at
once against a slow upstream. HTTP/1.1 with keep-alive on asyncio (one thread, so ten thousand connections
cost no thread each); each request is answered after --delay seconds with a small JSON body.

Usage: slow_server.py --port PORT [--delay 1.0]   (127.0.0.1 only; runs until killed)"""

import argparse
import asyncio

BODY = b'{"slow":true}'
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)


async def serve(reader, writer, delay):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            if not head:
                break
            await asyncio.sleep(delay)
            writer.write(RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=1.0)
    arguments = parser.parse_args()
    server = await asyncio.start_server(lambda r, w: serve(r, w, arguments.delay), "127.0.0.1", arguments.port,
                                        backlog=4096)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
