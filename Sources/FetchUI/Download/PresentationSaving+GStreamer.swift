import FetchCore
import FetchPlayer

extension PresentationSaving {
    /// HLS and DASH presentations remuxed by GStreamer into one MP4 as their segments arrive;
    /// its plug-ins load off the main thread meanwhile; a file saved audio only has its audio
    /// track copied out by GStreamer too. What the window's downloads use.
    public static var gstreamer: PresentationSaving {
        PresentationSaving(remux: Remuxer.presentations, audioTrack: AudioTrackCopier.copy) { Remuxer.prepareInBackground() }
    }
}
