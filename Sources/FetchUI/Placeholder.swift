import CGtk
import CGLib
import FetchPlayer
