<?php
// Calls DeWIS operations with PHP's SoapClient in non-WSDL mode (RPC style, SOAP encoding),
// configured as the club-website plugins configure it, and prints what PHP decoded as JSON.
// Usage: php dewis_calls.php LOCATION < calls.json, where calls.json is a list of
// [operation, [argument, ...]]; prints a list of {"result": ...} or {"fault": faultstring}.
// php dewis_calls.php WSDL-URL wsdl: the same calls in WSDL mode, as ChessLeagueManager's
// older DeWIS functions make them.
$location = $argv[1];
$calls = json_decode(stream_get_contents(STDIN), true);
if (isset($argv[2]) && $argv[2] == 'wsdl') {
    $client = new SoapClient($location, array('trace' => 1, 'cache_wsdl' => WSDL_CACHE_NONE));
} else {
    $client = new SoapClient(NULL, array(
        'location'           => $location,
        'uri'                => 'https://soap',
        'style'              => SOAP_RPC,
        'use'                => SOAP_ENCODED,
        'connection_timeout' => 15,
        'exceptions'         => true,
    ));
}
$out = array();
foreach ($calls as $call) {
    list($operation, $arguments) = $call;
    try {
        $result = $client->__soapCall($operation, $arguments);
        $out[] = array('result' => $result);
    } catch (SoapFault $fault) {
        $out[] = array('fault' => $fault->faultstring, 'code' => $fault->faultcode);
    }
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION), "\n";
