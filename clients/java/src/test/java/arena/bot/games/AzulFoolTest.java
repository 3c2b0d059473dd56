package arena.bot.games;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import arena.bot.Turn;
import arena.v1.Bot.ConnectResponse;
import arena.v1.GameAzul.AzulObservation;
import arena.v1.GameFool.FoolObservation;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Azul and FOOL! helpers on turns decoded from the server's real bytes. */
class AzulFoolTest {
    /**
     * A ConnectResponse the server sent: the ActionRequest of seat 0 of a 3-player grey-wall Azul match in
     * round 2's tiling (its observation arena.catalogue.observation_to_proto of the engine's).
     */
    private static final String AZUL_TILING = "1a97050a016d10013adb031ad80308001003180220642802300242030001024a004a004a004a004a004a004a0060026a7012030a015712030a015212090a01570a01570a015712090a014b0a014b0a014b12060a014b0a014b1a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201592201592201592201596a6812030a015212030a015712060a01570a015712030a014b12060a01570a01571a0b0a000a000a000a01590a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a002201522201422201422201426a7112030a014b120012030a014212090a014b0a014b0a014b12060a01420a01421a0a0a000a000a000a000a001a0b0a01420a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a001a0a0a000a000a000a000a0022015322015922015222015222015222015222015272050c070809087a01427a01597a01597a01597a01597a01597a01597a01597a01527a01527a01527a01527a014b7a01577a01577a015782012e08011a001a03313a341a03323a31220022080a0608011004180122080a060802100118012a03060e0132030000004207313a3120333a324207313a3120333a334207313a3120333a344207313a3120333a354207313a3220333a314207313a3220333a334207313a3220333a344207313a3220333a354207313a3320333a314207313a3320333a324207313a3320333a344207313a3320333a354207313a3420333a314207313a3420333a324207313a3420333a334207313a3420333a354207313a3520333a314207313a3520333a324207313a3520333a334207313a3520333a34";
    /** Likewise, of seat 7 of an 8-player FOOL! match in a trick of round 1. */
    private static final String FOOL_TRICK = "1aa1040a016d100118073a810422fe03080710081a0247321a0247331a0247341a0247351a0247361a0247371a0247381a0247391a034731301a034731311a034731321a034731331a034731341a034731351a034731361a034731371a034731381a034731391a034732301a034732311a034732321a034732331a034732341a034732351a034732361a034732371a0252321a0252331a0252341a0252351a0252361a0252371a0252381a0252391a035231301a035231311a035231321a035231331a035231341a035231351a035231361a035231371a035231381a035231391a035232301a035232311a035232321a035232331a0259321a0259331a0259341a0259351a0259361a0259371a0259381a0259391a035931301a035931311a035931321a035931331a035931341a035931351a035931361a035931371a035931381a035931391a035932301a035932311a0242321a0242331a0242341a0242351a0242361a0242371a0242381a0242391a034231301a034231311a034231321a034231331a034231341a034231351a0257311a0257311a0257311a0257311a0257311a025731200b28023005380140054a0247394a034732354a0252324a0252384a035231304a035232324a0259334a0259344a0242384a0257314a02573152080b0b0b0b0b0b0a0b58066a0708061203523137700278079a01080000000000000000a20108000000000000000042025232420252384203523130420352323242025731";

    private static Turn turnOf(String hex) throws Exception {
        ConnectResponse response = ConnectResponse.parseFrom(HexFormat.of().parseHex(hex));
        return Turn.fromRequest(response.getActionRequest(), null);
    }

    @Test
    void aGreyWallTilingTurnHasItsObservationAndItsTilings() throws Exception {
        Turn turn = turnOf(AZUL_TILING);
        assertEquals("azul", turn.game());
        AzulObservation view = Azul.observation(turn);
        assertEquals(AzulObservation.WallSide.WALL_SIDE_GREY, view.getWallSide());
        assertEquals(AzulObservation.Phase.PHASE_TILING, view.getPhase());
        assertEquals(3, view.getBoardsCount());
        List<Azul.Action> actions = Azul.legalActions(turn);
        assertEquals(new Azul.Tiling(List.of(new Azul.Placement(1, 1), new Azul.Placement(3, 2))), actions.get(0));
        assertEquals(turn.legalActions(), actions.stream().map(Object::toString).toList());
        var wrong = assertThrows(IllegalArgumentException.class, () -> Fool.observation(turn));
        assertEquals("match m plays \"azul\", not fool", wrong.getMessage());
    }

    @Test
    void azulTakesParseAndPrint() {
        assertEquals(new Azul.Take(Azul.CENTRE, 'K', Azul.FLOOR), Azul.parse("C K F"));
        assertEquals(new Azul.Take(3, 'R', 4), Azul.parse("3 R 4"));
        for (String text : List.of("C K F", "0 W 1", "2:4 5:F")) {
            assertEquals(text, Azul.parse(text).toString());
        }
        for (String bad : List.of("", "3 R", "9 R 4", "3 G 4", "3 R 6", "C K F F", "2:6", "3:1 2:4", "2:4:1", "take 1")) {
            assertNull(Azul.parse(bad), bad);
        }
    }

    @Test
    void aFoolTurnHasItsObservationAndItsCards() throws Exception {
        Turn turn = turnOf(FOOL_TRICK);
        assertEquals("fool", turn.game());
        FoolObservation view = Fool.observation(turn);
        assertEquals(8, view.getNumPlayers());
        assertEquals(7, view.getSeat());
        assertTrue(view.getTrickCount() > 0 && view.getHandList().contains("R22"));
        assertEquals(List.of("R2", "R8", "R10", "R22", "W1"), turn.legalActions());
        List<Fool.Card> cards = Fool.legalCards(turn);
        assertEquals(turn.legalActions(), cards.stream().map(Object::toString).toList());
        assertTrue(cards.get(4).isWild());
        assertFalse(cards.get(0).isWild());
        var wrong = assertThrows(IllegalArgumentException.class, () -> Azul.observation(turn));
        assertEquals("match m plays \"fool\", not azul", wrong.getMessage());
        for (String bad : List.of("", "G", "G1", "G28", "B16", "W2", "R02", "X5", "g5", "R 5")) {
            assertNull(Fool.Card.parse(bad), bad);
        }
    }
}
