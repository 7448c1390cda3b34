import CGStreamer
import CGLib
