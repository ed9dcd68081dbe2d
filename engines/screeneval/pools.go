package screeneval

import "strings"

// Name-part pools for GenerateList. Fictional combinations of common name
// parts; surnames are partly composed from stems and suffixes so the space
// of names is large, as it is in real life (small pools would make
// non-listed people collide with listed ones far more than real customers
// do).

func words(s string) []string { return strings.Fields(s) }

var (
	westFirst = words(`John James Robert Michael William David Richard Thomas Charles Daniel Matthew Anthony Mark Paul
	Steven Andrew Peter George Edward Henry Mary Elizabeth Sarah Emma Anna Laura Claire Sophie Julia Hannah
	Jürgen Günther Klaus Stefan Wolfgang Dieter Helmut Uwe Björn Søren Lars Henrik François Jérôme Frédéric
	Amélie Hélène Céline Étienne René Noël Zoë Pieter Joost Maarten Sven Giovanni Luca Marco Matteo Giuseppe
	Francesca Chiara Niccolò João Patrick Sean Liam Oliver Felix Gregory Harold Ingrid Margarethe Dorothée
	Benoît Thérèse Agnès Jörg Günter Ludwig Friedrich Anneliese Brigitte Siobhán Ciarán Eoin Raphaël Gaëlle`)
	westLast = words(`Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Moore Martin Jackson
	Thompson White Harris Clark Lewis Robinson Walker Young Allen King Wright Scott Green Baker Adams Nelson Hill
	Campbell Mitchell Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook Rogers
	Morgan Cooper Peterson Reed Bailey Bell Kelly Howard Ward Cox Richardson Wood Watson Brooks Bennett Gray Hughes
	Price Sanders Myers Ross Foster Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann
	Schäfer Koch Bauer Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Braun Krüger Hartmann Lange Dubois
	Lefèvre Moreau Laurent Girard Bonnet Dupont Lambert Fontaine Rousseau Vincent Chevalier Gauthier Perrin
	Mercier Boucher Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Gallo Conti Mancini
	Costa Giordano Rizzo Lombardi Moretti Jansen Bakker Visser Smit Meijer Mulder Dekker Brouwer Dijkstra
	Andersson Johansson Karlsson Nilsson Eriksson Larsson Olsen Hansen Jørgensen Sørensen Nielsen O'Brien
	O'Connor McCarthy Gallagher Doherty Kennedy Lynch Quinn Byrne Lefebvre Garnier Faure Rocher Lévêque Böhm`)
	westStem = words(`Ash Black Brad Brook Chester Clif Crom Dal Ed Fair Green Hamp Hart Kings Lang Mar Nor Red
	Ship Stan Stock Thorn Wal Water West Whit Wood Ald Bar Brom Cal Dun Elm Fen Gold Hal Hol Kel Lind Mil
	Pen Rad Rus Sal Sel Sut Tam Wick Win Yar Brun Eich Rosen Stein Linden Eisen Silber Weiß Sonnen Winter`)
	westSuffix = words(`ford ton ley wood field worth by ham well stone bury more mann berg feld bach hof hausen`)

	spanishFirst = words(`José María Jesús Juan Carlos Luis Miguel Ángel Francisco Javier Antonio Manuel Pedro Alejandro
	Fernando Sergio Pablo Jorge Andrés Raúl Rubén Óscar Adrián Diego Álvaro Iván Ramón Joaquín Lucía Sofía
	Carmen Isabel Pilar Dolores Teresa Rocío Inés Mónica Beatriz Verónica Guadalupe Concepción Begoña`)
	spanishLast = words(`García Rodríguez González Fernández López Martínez Sánchez Pérez Gómez Martín Jiménez Ruiz
	Hernández Díaz Moreno Muñoz Álvarez Romero Alonso Gutiérrez Navarro Torres Domínguez Vázquez Ramos Gil
	Ramírez Serrano Blanco Molina Morales Suárez Ortega Delgado Castro Ortiz Rubio Marín Sanz Núñez Iglesias
	Medina Garrido Cortés Castillo Santos Lozano Guerrero Cano Prieto Méndez Cruz Calvo Gallego Vidal León
	Márquez Herrera Peña Flores Cabrera Campos Vega Fuentes Carrasco Diez Caballero Reyes Nieto Aguilar Pascual
	Santana Herrero Lorenzo Hidalgo Montero Ibáñez Giménez Ferrer Durán Santiago Benítez Mora Vicente Vargas
	Arias Carmona Crespo Román Pastor Soto Sáez Velasco Moya Soler Parra Esteban Bravo Gallardo Rojas Pardo
	Echeverría Zúñiga Quiñones Valdés Arévalo Betancourt Cienfuegos Villalobos Bustamante Sepúlveda`)

	// Slavic names are generated in Cyrillic; the Latin aliases are romanised
	// by romanizeCyrillic with a per-entity choice of convention.
	slavicMale = words(`Александр Сергей Дмитрий Андрей Алексей Максим Евгений Иван Михаил Николай Владимир Юрий
	Виктор Олег Игорь Павел Роман Артём Константин Денис Вадим Вячеслав Григорий Борис Фёдор Леонид Анатолий
	Геннадий Валерий Степан Тимофей Ярослав Илья Кирилл Аркадий Эдуард Руслан Василий Пётр Георгий`)
	slavicFemale = words(`Елена Ольга Наталья Татьяна Ирина Светлана Юлия Анна Мария Екатерина Людмила Галина Марина
	Валентина Ксения Дарья Алёна Полина Вера Надежда Любовь Жанна Яна Зоя Эльвира`)
	slavicStem = words(`Иван Петр Сидор Смирн Кузнец Волк Козл Лебед Новик Мороз Павл Семен Голуб Виноград Богдан
	Воробь Федор Михайл Беля Тарас Бел Комар Орл Кисел Макар Андре Ковал Гус Тит Кузьм Баран Кулик Алексе
	Степан Яковл Сорок Серге Роман Захар Борис Корол Герасим Пономар Григорь Лазар Медвед Ерш Никит Собол Ряб
	Поляк Цветк Данил Жук Фрол Журавл Никола Крыл Максим Осип Белоус Федот Егор Матве Бобр Дмитри Калин
	Анисим Петух Антон Тимофе Никифор Весел Филипп Марк Большак Сухан Мирон Ширя Коновал Шестак Казак Ефим
	Денис Гром Давыд Мельник Щербак Блин Колесник Карп Афанась Власт Масл Исак Тихон Аксен Гаврил Родион
	Кот Горбун Кудряш Бык Зу Третьяк Савель Пан Рыбак Суворк Абрам Ворон Мух Архип Трофим Мартын Емельян
	Горшк Черн Овчинник Селезн Панфил Копыл Михе Галк Назар Лобан Лук Потап Некрас Хохл Ждан Наум Шил Ермак`)
	slavicSuffixM = words(`ов ев ин ский енко ук чук ович`)
	slavicSuffixF = words(`ова ева ина ская енко ук чук ович`)
	// Ukrainian and Serbian forms, for the letters Russian lacks.
	ukrFirst    = words(`Олексій Віктор Євген Іван Василь Микола Тарас Богдан Остап Юрій Оксана Ганна Марія Ірина Олена`)
	ukrLast     = words(`Шевченко Коваленко Бондаренко Ткаченко Кравченко Олійник Шевчук Поліщук Бойко Мельник Лисенко Гнатюк Ігнатенко Єременко Федорів`)
	serbFirst   = words(`Милош Душан Јован Ђорђе Никола Марко Љубомир Небојша Драган Зоран Јелена Љиљана Мирјана Снежана Ивана`)
	serbStem    = words(`Петров Јованов Никол Ђорђев Милошев Стојанов Марков Илијин Павлов Ђок Ристов Лазаров Живков Стаменков Јанков`)
	greekFirst  = words(`Γεώργιος Κωνσταντίνος Δημήτριος Νικόλαος Ιωάννης Παναγιώτης Χρήστος Αθανάσιος Βασίλειος Ευάγγελος Μιχαήλ Σπυρίδων Θεόδωρος Αναστάσιος Σταύρος Αντώνιος Ευστάθιος Χαράλαμπος Μαρία Ελένη Αικατερίνη Βασιλική Σοφία Αγγελική Δήμητρα Ευαγγελία Χριστίνα Θεοδώρα Ιουλία Ζωή`)
	greekPrefix = words(`- - - Παπα Καρα Χατζη`)
	greekStem   = words(`Δημητρ Γεωργ Νικολ Κωνσταντ Αθανασ Βασιλ Χριστ Σταυρ Μιχαλ Παναγ Αντων Ιωανν Θεοδωρ Σπυρ Λαμπρ Μαρκ Πετρ Αλεξ Ευαγγελ Στεφαν Αναστασ Κυριακ Τσακ Μαυρ Ζαχαρ Ηλι Φωτ Λιβαν Μανωλ Τζαν Ραφτ Μπαλ Ντιν Σαρ Κολ Βλαχ Ψαρ Ξεν Θεοχαρ`)
	greekSuffix = words(`όπουλος άκης ίδης ίου άτος ίτης ιάδης ας`)

	// Arabic names: each group lists Latin spellings, the Arabic-script form last.
	arabicFirst = [][]string{
		{"Mohammed", "Muhammad", "Mohamed", "Mohammad", "محمد"}, {"Ahmed", "Ahmad", "أحمد"},
		{"Abdullah", "Abdallah", "Abdulla", "عبدالله"}, {"Ali", "Aly", "علي"}, {"Hassan", "Hasan", "حسن"},
		{"Hussein", "Husain", "Hussain", "Husayn", "حسين"}, {"Omar", "Umar", "عمر"}, {"Khalid", "Khaled", "خالد"},
		{"Youssef", "Yusuf", "Yousef", "Yusef", "يوسف"}, {"Ibrahim", "Ebrahim", "إبراهيم"},
		{"Abdulrahman", "Abdul Rahman", "Abd al-Rahman", "عبدالرحمن"}, {"Mustafa", "Mostafa", "Moustafa", "مصطفى"},
		{"Mahmoud", "Mahmud", "محمود"}, {"Saeed", "Said", "Sayed", "سعيد"}, {"Tariq", "Tarek", "Tarik", "طارق"},
		{"Walid", "Waleed", "وليد"}, {"Hamza", "Hamzah", "حمزة"}, {"Faisal", "Faysal", "Feisal", "فيصل"},
		{"Nasser", "Nasir", "Naser", "ناصر"}, {"Karim", "Kareem", "كريم"}, {"Jamal", "Gamal", "جمال"},
		{"Salim", "Saleem", "Selim", "سليم"}, {"Yasser", "Yasir", "Yaser", "ياسر"}, {"Osama", "Usama", "أسامة"},
		{"Ayman", "Aiman", "أيمن"}, {"Bilal", "بلال"}, {"Hisham", "Hesham", "هشام"}, {"Ziad", "Ziyad", "زياد"},
		{"Majid", "Majed", "Maged", "ماجد"}, {"Rashid", "Rashed", "راشد"}, {"Samir", "Sameer", "سمير"},
		{"Adel", "Adil", "عادل"}, {"Anwar", "أنور"}, {"Suleiman", "Sulayman", "Soliman", "سليمان"},
		{"Abdelaziz", "Abdul Aziz", "Abd al-Aziz", "عبدالعزيز"},
		{"Marwan", "مروان"}, {"Qasim", "Kassem", "Qassem", "قاسم"}, {"Hani", "هاني"}, {"Wael", "Wail", "وائل"},
		{"Fatima", "Fatma", "فاطمة"}, {"Aisha", "Aysha", "عائشة"},
		{"Maryam", "Mariam", "مريم"}, {"Khadija", "Khadijah", "خديجة"}, {"Zainab", "Zaynab", "زينب"},
		{"Layla", "Leila", "ليلى"}, {"Nour", "Noor", "نور"}, {"Mounir", "Munir", "منير"}, {"Imad", "Emad", "عماد"},
	}
	// arabicMale: the first arabicMale groups are male names (fathers).
	arabicMale   = 39
	arabicFamily = [][]string{
		{"al-Masri", "Al Masri", "El Masry", "المصري"}, {"al-Tikriti", "Al Tikriti", "التكريتي"},
		{"Haddad", "al-Haddad", "حداد"}, {"Khoury", "Khouri", "al-Khoury", "خوري"}, {"al-Shami", "Al Shami", "الشامي"},
		{"Mansour", "Mansur", "منصور"}, {"Nasrallah", "Nasrallah", "نصرالله"}, {"al-Hashimi", "Al Hashemi", "الهاشمي"},
		{"al-Qahtani", "Al Qahtani", "القحطاني"}, {"al-Zahrani", "Al Zahrani", "الزهراني"}, {"al-Otaibi", "Al Otaiba", "العتيبي"},
		{"al-Ghamdi", "Al Ghamdi", "الغامدي"}, {"al-Dosari", "Al Dossary", "الدوسري"}, {"Darwish", "Darweesh", "درويش"},
		{"Saleh", "Salih", "صالح"}, {"al-Bakri", "Al Bakri", "البكري"}, {"Hamdan", "حمدان"}, {"Barakat", "بركات"},
		{"al-Jabouri", "Al Jabouri", "Al Jubouri", "الجبوري"}, {"al-Dulaimi", "Al Dulaimi", "الدليمي"},
		{"Sabbagh", "al-Sabbagh", "الصباغ"}, {"Qureshi", "al-Qurashi", "القرشي"}, {"Abboud", "Aboud", "عبود"},
		{"al-Rawi", "Al Rawi", "الراوي"}, {"Kanaan", "Kanan", "كنعان"}, {"Shaheen", "Shahin", "شاهين"},
		{"al-Amin", "Al Amin", "الأمين"}, {"Zayed", "Zaid", "زايد"}, {"al-Harbi", "Al Harbi", "الحربي"},
		{"Jaber", "Jabir", "جابر"}, {"al-Ansari", "Al Ansari", "الأنصاري"}, {"Suleimani", "Soleimani", "سليماني"},
		{"Makhlouf", "Makhluf", "مخلوف"}, {"al-Assad", "Al Asad", "الأسد"}, {"Hijazi", "Hegazy", "حجازي"},
		{"al-Najjar", "Al Naggar", "النجار"}, {"Fakhoury", "Fakhouri", "فاخوري"}, {"al-Awlaki", "Al Aulaqi", "العولقي"},
		{"Abu Zaid", "Abou Zeid", "أبوزيد"}, {"al-Sudani", "Al Soudani", "السوداني"}, {"al-Kuwaiti", "Al Kuwaity", "الكويتي"},
		{"Mubarak", "مبارك"}, {"al-Sharif", "El Sherif", "الشريف"}, {"Ghanem", "Ghanim", "غانم"}, {"Tahir", "Taher", "طاهر"},
	}

	chineseSurname = words(`Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Gao Luo Zheng Liang
	Xie Song Tang Han Feng Deng Cao Peng Zeng Xiao Tian Dong Pan Yuan Cai Jiang Yu Du Ye Cheng Wei Su Lu Ding Ren Shen
	Yao Jin Fu Zhong Cui Tan Fan Qiu Qin Jia Hou Shao Meng Xiong Kong Bai Qian Mao`)
	chineseSyllable = words(`wei fang ming hua jun jie lei qiang yan ling xiu ying hong jian ping gang hui na xin yu hao tao
	chen bo long feng yong kai rui zhi hai peng xiang bin dong guang tian yi lan jing mei qing shan wen xue yun zhen
	jia cheng an de fei liang shu ning`)

	orgWord = words(`Global Eastern Atlas Golden Crescent Falcon Horizon Meridian Pioneer Orient Union Premier Summit
	Delta Phoenix Sovereign Baltic Caspian Aral Sahara Nile Gulf Pacific Polar Aurora Vector Titan Zenith Alpha
	Sigma Nova Stellar Emerald Sapphire Granite Cedar Oasis Silk Amber Onyx Vanguard Triton Orion Pegasus`)
	orgNoun = words(`Trading Petroleum Shipping Maritime Industrial Logistics Energy Holdings Investments Finance
	Engineering Metals Chemicals Aviation Technologies Resources Mining Construction Commodities Ventures
	Exchange Electronics Tankers Navigation Supply Systems Defense Agro Pharma Textiles Minerals`)
	orgForm = words(`LLC Ltd GmbH FZE JSC OOO Inc S.A. B.V. Co. PJSC SARL`)
	orgCyr  = words(`Ромашка Восток Север Альфа Вектор Титан Урал Сибирь Балтика Меридиан Горизонт Феникс Заря Рассвет Орион`)
)
